{% macro cdc_surely_converts(value_text, spark_type, source_type="cast(null as string)") %}
    {#-
        A cheap condition (no lambda function, no regular expression on the source type) under
        which cdc_typed_value(value_text, spark_type, source_type) is certainly not null, for a
        non-null value text: the value's source type is not a Kafka Connect / Debezium type (whose
        values cdc_typed_value decodes) and the text is in the plain form the conversion reads
        directly (an integer text for int, digits with at most the scale's fraction digits for
        decimal(p,s), yyyy-mm-dd for date, a non-numeric text for timestamp, base64 for binary,
        anything for string) and casts. False when in doubt: int_cdc__conversion_checks evaluates
        the full conversion for the values this leaves, so this must never be true for a value
        that does not convert.
    -#}
    {%- set target = cdc_checked_spark_type(spark_type) -%}
    {%- set text = 'cast(' ~ value_text ~ ' as string)' -%}
    {%- set lowered_type = 'lower(trim(cast(' ~ source_type ~ ' as string)))' -%}
    {%- set is_plain_type -%}
        coalesce(
            not ({{ lowered_type }} like 'org.apache.kafka.connect.%' or {{ lowered_type }} like 'io.debezium.%'),
            true
        )
    {%- endset -%}
    {%- if target in ('int', 'integer', 'bigint', 'smallint', 'tinyint') -%}
        ({{ is_plain_type }} and try_cast({{ text }} as {{ target }}) is not null)
    {%- elif target.startswith('decimal') -%}
        {%- set scale = (target.split(',')[1].rstrip(')') if ',' in target else '0') | int -%}
        (
            {{ is_plain_type }}
            and {{ text }} rlike '^[+-]?[0-9]+(\\.[0-9]{0,{{ scale }}})?$'
            and try_cast({{ text }} as {{ target }}) is not null
        )
    {%- elif target in ('float', 'double') -%}
        (
            {{ is_plain_type }}
            and try_cast({{ text }} as {{ target }}) is not null
            and not isnan(try_cast({{ text }} as {{ target }}))
            and abs(try_cast({{ text }} as {{ target }})) != double('infinity')
        )
    {%- elif target == 'boolean' -%}
        (try_cast(trim({{ text }}) as boolean) is not null)
    {%- elif target == 'date' -%}
        (
            {{ is_plain_type }}
            and trim({{ text }}) rlike '^[+-]?[0-9]{4,}-[0-9]{1,2}-[0-9]{1,2}$'
            and try_cast(trim({{ text }}) as date) is not null
        )
    {%- elif target == 'timestamp' -%}
        (
            {{ is_plain_type }}
            and not trim({{ text }}) rlike '^[+-]?[0-9]+(\\.[0-9]*)?$'
            and try_cast(trim({{ text }}) as timestamp) is not null
        )
    {%- elif target == 'binary' -%}
        {{ cdc_is_base64(text) }}
    {%- else -%}
        {{ is_plain_type }}
    {%- endif -%}
{% endmacro %}
