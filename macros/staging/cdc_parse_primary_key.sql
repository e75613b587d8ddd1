{% macro cdc_parse_primary_key(sql_text) %}
    {#-
        The primary-key column names declared by a DDL statement (CREATE TABLE ... PRIMARY KEY (a, b),
        an inline `id int PRIMARY KEY`, or ALTER TABLE ... ADD PRIMARY KEY (a)), or null.
    -#}
    case
        when {{ sql_text }} rlike '(?is)primary\\s+key\\s*\\('
            then transform(
                split(regexp_extract({{ sql_text }}, '(?is)primary\\s+key\\s*\\(([^)]*)\\)', 1), ','),
                column_name -> regexp_replace(trim(column_name), '^[`"\\[]|[`"\\]]$|\\s*\\(\\d+\\)$', '')
            )
        when {{ sql_text }} rlike '(?is)^\\s*create\\s+table.*[(,]\\s*[`"]?\\w+[`"]?\\s+[^,]*?\\bprimary\\s+key\\b'
            then array(
                regexp_extract(
                    {{ sql_text }},
                    '(?is)[(,]\\s*[`"]?(\\w+)[`"]?\\s+[^,(]*(\\([^)]*\\))?[^,(]*?\\bprimary\\s+key\\b',
                    1
                )
            )
    end
{% endmacro %}
