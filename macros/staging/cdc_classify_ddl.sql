{% macro cdc_classify_ddl(sql_text) %}
    {#-
        Canal's DDL type (CREATE, ALTER, ERASE, RENAME, TRUNCATE, CINDEX, DINDEX, QUERY) derived from
        the statement text, for producers that do not say. Database-level statements are QUERY, as
        Canal reports them.
    -#}
    case
        when {{ sql_text }} rlike '(?is)^\\s*(/\\*.*?\\*/\\s*)*create\\s+(database|schema)\\b' then 'QUERY'
        when {{ sql_text }} rlike '(?is)^\\s*(/\\*.*?\\*/\\s*)*drop\\s+(database|schema)\\b' then 'QUERY'
        when {{ sql_text }} rlike '(?is)^\\s*(/\\*.*?\\*/\\s*)*create\\s+(unique\\s+|fulltext\\s+|spatial\\s+)?index\\b' then 'CINDEX'
        when {{ sql_text }} rlike '(?is)^\\s*(/\\*.*?\\*/\\s*)*drop\\s+index\\b' then 'DINDEX'
        when {{ sql_text }} rlike '(?is)^\\s*(/\\*.*?\\*/\\s*)*create\\s+(temporary\\s+)?table\\b' then 'CREATE'
        when {{ sql_text }} rlike '(?is)^\\s*(/\\*.*?\\*/\\s*)*drop\\s+table\\b' then 'ERASE'
        when {{ sql_text }} rlike '(?is)^\\s*(/\\*.*?\\*/\\s*)*rename\\s+table\\b' then 'RENAME'
        when {{ sql_text }} rlike '(?is)^\\s*(/\\*.*?\\*/\\s*)*alter\\s+table\\b.*\\brename\\s+(to|as)\\b' then 'RENAME'
        when {{ sql_text }} rlike '(?is)^\\s*(/\\*.*?\\*/\\s*)*truncate\\b' then 'TRUNCATE'
        when {{ sql_text }} rlike '(?is)^\\s*(/\\*.*?\\*/\\s*)*alter\\s+table\\b' then 'ALTER'
        else 'QUERY'
    end
{% endmacro %}
