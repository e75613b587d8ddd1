{% macro cdc_typed_value(
    value_text, spark_type, source_type="cast(null as string)", source_types=none, number_text=none
) %}
    {#-
        The value text (exact text from a row image) converted to `spark_type` (a literal Spark type
        from cdc_columns.spark_type), reading it the way its source type says (Debezium logical
        types, OMS TIMESTAMP epoch seconds, base64 binary, ...). Null when the text is null or does
        not convert: a value that does not convert is listed in cdc_conversion_failures (a non-null
        text whose typed value is null), never silently lost. See _typing__macros.yml for the rules.
        `source_types`, when given, lists every source type the values can have (cdc_columns):
        without a Kafka Connect / Debezium type among them, their branches are left out.
        `number_text`, when given, is the value's number text already decoded (cdc_numeric_text),
        which the numeric targets use instead of decoding it again.
    -#}
    {%- set target = cdc_checked_spark_type(spark_type) -%}
    {%- set connect_types = [] -%}
    {%- for hinted_type in (source_types or []) if hinted_type is string -%}
        {%- if (hinted_type | lower | trim).startswith('org.apache.kafka.connect.')
            or (hinted_type | lower | trim).startswith('io.debezium.') -%}
            {%- do connect_types.append(hinted_type) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set with_connect = source_types is none or connect_types | length > 0 -%}
    {%- set text = 'typed_input.text' -%}
    {%- set base = 'typed_input.base' -%}
    {%- set number = 'typed_input.number' if number_text
        else cdc_numeric_text('typed_input.text', 'typed_input.source_type', with_connect) -%}
    {%- set conversion -%}
    {%- if target in ('int', 'integer', 'bigint', 'smallint', 'tinyint') -%}
        {{ cdc_typed_integer(number, target) }}
    {%- elif target.startswith('decimal') -%}
        {{ cdc_typed_decimal(number, target) }}
    {%- elif target in ('float', 'double') -%}
        {{ cdc_typed_floating(number, target) }}
    {%- elif target == 'boolean' -%}
        {{ cdc_typed_boolean(text) }}
    {%- elif target == 'date' -%}
        {{ cdc_typed_date(text, base, with_connect) }}
    {%- elif target == 'timestamp' -%}
        {{ cdc_typed_timestamp(text, base, with_connect) }}
    {%- elif target == 'binary' -%}
        {{ cdc_typed_binary(text) }}
    {%- else -%}
        {{ cdc_typed_text(text, base, with_connect) }}
    {%- endif -%}
    {%- endset -%}
    {%- set input -%}
        named_struct(
            'text', cast({{ value_text }} as string),
            'source_type', cast({{ source_type }} as string),
            'base', {{ cdc_type_base(source_type) }}
            {%- if number_text %},
            'number', cast({{ number_text }} as string)
            {%- endif %}
        )
    {%- endset -%}
    cast({{ cdc_let('typed_input', input, conversion) }} as {{ 'string' if target not in (
        'int', 'integer', 'bigint', 'smallint', 'tinyint', 'float', 'double', 'boolean', 'date',
        'timestamp', 'binary'
    ) and not target.startswith('decimal') else target }})
{% endmacro %}


{% macro cdc_checked_spark_type(spark_type) %}
    {#-
        A Spark type text from cdc_columns.spark_type, lowercased without spaces, checked to be one
        cdc_spark_type_for makes (string, boolean, int, bigint, float, double, date, timestamp,
        binary, decimal(p,s)) before it is compiled into SQL; any other text is a compiler error.
    -#}
    {%- set target = spark_type | string | lower | replace(' ', '') -%}
    {%- set digits = target[8:-1].split(',') if target.startswith('decimal(') and target.endswith(')') else [] -%}
    {%- if target in ('string', 'boolean', 'int', 'integer', 'bigint', 'smallint', 'tinyint', 'float', 'double',
        'date', 'timestamp', 'binary')
        or (digits | length == 2 and digits[0].isdigit() and digits[1].isdigit()
            and digits[0] | length <= 2 and digits[1] | length <= 2) -%}
        {{ return(target) }}
    {%- endif -%}
    {{ exceptions.raise_compiler_error(
        'cdc_columns.spark_type ' ~ (spark_type | string | tojson) ~ ' is not a Spark type cdc-lake makes; '
        ~ 'rebuild cdc_columns (dbt build --select cdc_columns) and report it if it stays'
    ) }}
{% endmacro %}
