{% macro cdc_json_options() %}
    {#- Options for every from_json over a message: raw newlines inside strings are accepted. -#}
    map('allowUnquotedControlChars', 'true', 'mode', 'PERMISSIVE')
{% endmacro %}
