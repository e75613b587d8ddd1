{% macro cdc_base64(binary_value) %}
    {#-
        Standard base64 (with padding, on one line) of a binary value. Spark's base64() may break
        its output into 76-character MIME lines (spark.sql.chunkBase64String.enabled); the line
        breaks are removed so that the text is the same on every target and decodes anywhere.
    -#}
    regexp_replace(base64({{ binary_value }}), '[\\r\\n]', '')
{% endmacro %}
