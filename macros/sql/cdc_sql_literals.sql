{% macro cdc_sql_string(value) %}
    {#- A Spark SQL string literal of a Jinja value (null for none). -#}
    {%- if value is none -%}
        cast(null as string)
    {%- else -%}
        '{{ value | string | replace("\\", "\\\\") | replace("'", "\\'") }}'
    {%- endif -%}
{% endmacro %}


{% macro cdc_sql_identifier(name) %}
    {#- A Spark SQL identifier of a name from data: in backticks, each backtick in it doubled. -#}
    `{{ name | string | replace('`', '``') }}`
{% endmacro %}
