{% macro cdc_exact_json(text_column) %}
    {#-
        Rewrite a JSON text so that Spark's from_json keeps every value's exact text:
        1. drop // and /* */ comments and trailing commas, also a comma with comments between it and the
           closing bracket (string literals are matched first and kept);
        2. quote every bare number, so `0.10` reaches map<string,string> as "0.10", not 0.1, and
           12345678901234567890.1234567890 keeps all its digits (from_json would go through a double).
        Both passes match string literals first, so text inside strings is never touched.
        On Spark (local and Thrift) the JVM function cdc_exact_json does both passes in one linear
        scan each (python/cdc_lake/jvm/, registered by cdc_create_functions); on Databricks, where
        the project ships no jar, the two regular expressions of cdc_exact_json_regex do.
    -#}
    {%- if cdc_is_databricks() -%}
        {{ cdc_exact_json_regex(text_column) }}
    {%- else -%}
        {{ cdc_function('cdc_exact_json') }}({{ text_column }})
    {%- endif -%}
{% endmacro %}


{% macro cdc_exact_json_regex(text_column) %}
    {#- cdc_exact_json as two regexp_replace passes (python/cdc_lake/exact_json.py mirrors them). -#}
    regexp_replace(
        regexp_replace(
            {{ text_column }},
            '("(?:[^"\\\\]++|\\\\.)*+")|,(?:\\s++|//[^\\n]*+|/\\*(?s:.*?)\\*/)*+([}\\]])|//[^\\n]*+|/\\*(?s:.*?)\\*/',
            '$1$2'
        ),
        '"((?:[^"\\\\]++|\\\\.)*+)"|([:\\[,]\\s*+)(-?[0-9][0-9.eE+\\-]*+)',
        '$2"$1$3"'
    )
{% endmacro %}
