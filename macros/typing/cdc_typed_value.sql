{% macro cdc_is_base64(text) %}
    {#- True when the text is strict standard base64 with padding (whitespace ignored). -#}
    (regexp_replace({{ text }}, '\\s', '') rlike '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$')
{% endmacro %}


{% macro cdc_base64_binary(text) %}
    {#- The bytes of a strict base64 text; null when the text is not strict base64. -#}
    case when {{ cdc_is_base64(text) }} then unbase64(regexp_replace({{ text }}, '\\s', '')) end
{% endmacro %}


{% macro cdc_base64_unscaled_integer(text) %}
    {#-
        The integer held by base64 bytes read as a big-endian two's-complement number (Kafka Connect
        Decimal's unscaled value), as decimal(38,0); null when the text is not strict base64, is
        empty, or the number does not fit in 38 digits. The hex digits are cut into 56-bit chunks
        (14 hex digits, which conv() turns into exact decimal text) and combined with decimal(38,0)
        arithmetic (try_ functions: overflow gives null). A negative number (first bit set) is
        -(complement + 1), the complement being the bytes with every bit flipped.
    -#}
    {%- set unsigned_value -%}
        aggregate(
            sequence(0, cast(length(decimal_digits.padded_hex) / 14 as int) - 1),
            cast(0 as decimal(38, 0)),
            (accumulated, chunk_index) -> cast(try_add(
                try_multiply(accumulated, cast(72057594037927936 as decimal(38, 0))),
                cast(conv(substr(decimal_digits.padded_hex, chunk_index * 14 + 1, 14), 16, 10) as decimal(38, 0))
            ) as decimal(38, 0))
        )
    {%- endset -%}
    {%- set signed_value -%}
        case
            when decimal_digits.is_negative
                then try_subtract(cast(0 as decimal(38, 0)), try_add(unsigned_value, cast(1 as decimal(38, 0))))
            else unsigned_value
        end
    {%- endset -%}
    {%- set digits -%}
        named_struct(
            'is_negative', try_cast(conv(substr(hex_digits, 1, 1), 16, 10) as int) >= 8,
            'padded_hex', lpad(
                case
                    when try_cast(conv(substr(hex_digits, 1, 1), 16, 10) as int) >= 8
                        then translate(hex_digits, '0123456789ABCDEF', 'FEDCBA9876543210')
                    else hex_digits
                end,
                cast(ceil(length(hex_digits) / 14.0) * 14 as int),
                '0'
            )
        )
    {%- endset -%}
    {%- set from_hex -%}
        case
            when hex_digits is not null and length(hex_digits) > 0
                then {{ cdc_let('decimal_digits', digits, cdc_let('unsigned_value', unsigned_value, signed_value)) }}
        end
    {%- endset -%}
    {{ cdc_let('hex_digits', 'hex(' ~ cdc_base64_binary(text) ~ ')', from_hex) }}
{% endmacro %}


{% macro cdc_base64_decimal_text(text, scale) %}
    {#-
        The exact decimal text (`<unscaled>E-<scale>`) of a Kafka Connect Decimal: base64 unscaled
        bytes and a scale. Null when the bytes are not base64 or exceed 38 digits.
    -#}
    concat(
        cast({{ cdc_base64_unscaled_integer(text) }} as string),
        'E-',
        cast(try_cast({{ scale }} as int) as string)
    )
{% endmacro %}


{% macro cdc_decimal_scale_needed(number_text) %}
    {#-
        How many fractional digits a decimal number text needs to be held exactly: 0.10 -> 1,
        1500E-2 -> 0, 9.99E-308 -> 310, 12 -> 0. Texts that are not plain numbers give 0 (the cast
        decides).
    -#}
    {%- set parts -%}
        named_struct(
            'is_plain', scale_number rlike '^[+-]?[0-9]*(\\.[0-9]*)?([eE][+-]?[0-9]+)?$',
            'fraction', regexp_extract(scale_number, '^[+-]?[0-9]*\\.([0-9]*)', 1),
            'digits', concat(
                regexp_extract(scale_number, '^[+-]?([0-9]*)', 1),
                regexp_extract(scale_number, '^[+-]?[0-9]*\\.([0-9]*)', 1)
            ),
            'exponent', coalesce(try_cast(regexp_extract(scale_number, '[eE]([+-]?[0-9]+)$', 1) as int), 0)
        )
    {%- endset -%}
    {%- set needed -%}
        case
            when not scale_parts.is_plain then 0
            when scale_parts.digits rlike '^0*$' then 0
            else greatest(
                0,
                length(scale_parts.fraction) - scale_parts.exponent
                - (length(scale_parts.digits) - length(regexp_replace(scale_parts.digits, '0+$', '')))
            )
        end
    {%- endset -%}
    coalesce({{ cdc_let('scale_number', 'trim(' ~ number_text ~ ')', cdc_let('scale_parts', parts, needed)) }}, 0)
{% endmacro %}


{% macro cdc_decimal_type_of_value(number_text) %}
    {#-
        The decimal(p,s) of a plain number text as written: its fraction digits (trailing zeros
        kept, as OMS writes them) and its integer digits (12.50 -> decimal(4,2), -0.001 ->
        decimal(4,3), 1.5E+3 -> decimal(4,0)); null when the text is not a plain number or needs more
        than 38 digits. Used to size DECIMAL columns whose type gives no precision.
    -#}
    {%- set parts -%}
        named_struct(
            'is_plain', value_number rlike '^[+-]?[0-9]*(\\.[0-9]*)?([eE][+-]?[0-9]+)?$'
                and value_number rlike '[0-9]',
            'fraction', regexp_extract(value_number, '^[+-]?[0-9]*\\.([0-9]*)', 1),
            'significant', regexp_replace(
                concat(
                    regexp_extract(value_number, '^[+-]?([0-9]*)', 1),
                    regexp_extract(value_number, '^[+-]?[0-9]*\\.([0-9]*)', 1)
                ),
                '^0+',
                ''
            ),
            'exponent', coalesce(try_cast(regexp_extract(value_number, '[eE]([+-]?[0-9]+)$', 1) as int), 0)
        )
    {%- endset -%}
    {%- set scale = 'greatest(0, length(value_parts.fraction) - value_parts.exponent)' -%}
    {%- set sized -%}
        case
            when value_parts.is_plain
                and greatest(1, length(value_parts.significant) - length(value_parts.fraction) + value_parts.exponent)
                + {{ scale }} <= 38
                then concat(
                    'decimal(',
                    greatest(1, length(value_parts.significant) - length(value_parts.fraction) + value_parts.exponent)
                    + {{ scale }},
                    ',', {{ scale }}, ')'
                )
        end
    {%- endset -%}
    {{ cdc_let('value_number', 'trim(' ~ number_text ~ ')', cdc_let('value_parts', parts, sized)) }}
{% endmacro %}


{% macro cdc_time_of_day_text(count_text, fraction_digits) %}
    {#-
        A time of day (or a MySQL TIME duration) from an integer count of 10^-fraction_digits
        seconds, as [-]HH:MM:SS[.fraction] with the fraction's trailing zeros dropped:
        3723500000 micros -> 01:02:03.5. Null when the text is not an integer.
    -#}
    {%- set unit = 10 ** fraction_digits -%}
    {%- set amount = 'abs(try_cast(' ~ count_text ~ ' as bigint))' -%}
    case
        when try_cast({{ count_text }} as bigint) is not null
            then concat(
                case when try_cast({{ count_text }} as bigint) < 0 then '-' else '' end,
                lpad(cast(div({{ amount }}, {{ 3600 * unit }}) as string), 2, '0'), ':',
                lpad(cast(div({{ amount }} % {{ 3600 * unit }}, {{ 60 * unit }}) as string), 2, '0'), ':',
                lpad(cast(div({{ amount }} % {{ 60 * unit }}, {{ unit }}) as string), 2, '0'),
                case
                    when {{ amount }} % {{ unit }} != 0
                        then concat(
                            '.',
                            regexp_replace(lpad(cast({{ amount }} % {{ unit }} as string), {{ fraction_digits }}, '0'), '0+$', '')
                        )
                    else ''
                end
            )
    end
{% endmacro %}


{% macro cdc_numeric_text(value_text, source_type, with_connect=true) %}
    {#-
        The number a value stands for, as exact decimal text: a Kafka Connect Decimal (base64
        unscaled bytes, scale from the source type) or Debezium VariableScaleDecimal ({"scale", "value"})
        decoded, true/false as 1/0, any other text as it is.
    -#}
    {%- set base = cdc_type_base(source_type) -%}
    case
        {%- if with_connect %}
        when {{ base }} = 'org.apache.kafka.connect.data.decimal'
            then {{ cdc_base64_decimal_text(value_text, "regexp_extract(lower(" ~ source_type ~ "), 'scale=(\\\\d+)', 1)") }}
        when {{ base }} = 'io.debezium.data.variablescaledecimal'
            then {{ cdc_base64_decimal_text(
                "get_json_object(" ~ value_text ~ ", '$.value')",
                "get_json_object(" ~ value_text ~ ", '$.scale')"
            ) }}
        {%- endif %}
        when lower(trim({{ value_text }})) = 'true' then '1'
        when lower(trim({{ value_text }})) = 'false' then '0'
        else {{ value_text }}
    end
{% endmacro %}


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
        try_cast({{ number }} as {{ target }})
    {%- elif target.startswith('decimal') -%}
        {%- set scale = (target.split(',')[1].rstrip(')') if ',' in target else '0') | int -%}
        {{ cdc_let('typed_number', number,
            'case when ' ~ cdc_decimal_scale_needed('typed_number') ~ ' <= ' ~ scale
            ~ ' then try_cast(typed_number as ' ~ target ~ ') end') }}
    {%- elif target in ('float', 'double') -%}
        {%- set checked -%}
            case
                when isnan(try_cast(typed_number as {{ target }}))
                    or abs(try_cast(typed_number as {{ target }})) = double('infinity')
                    then case
                        when lower(typed_number) rlike 'nan|inf' then try_cast(typed_number as {{ target }})
                    end
                else try_cast(typed_number as {{ target }})
            end
        {%- endset -%}
        {{ cdc_let('typed_number', number, checked) }}
    {%- elif target == 'boolean' -%}
        case
            when trim({{ text }}) = 'AQ==' then true
            when trim({{ text }}) = 'AA==' then false
            else try_cast(trim({{ text }}) as boolean)
        end
    {%- elif target == 'date' -%}
        case
            {%- if with_connect %}
            when {{ base }} in ('org.apache.kafka.connect.data.date', 'io.debezium.time.date')
                then date_from_unix_date(try_cast({{ text }} as int))
            {%- endif %}
            when trim({{ text }}) rlike '^-?[0-9]{11,}$'
                and try_cast({{ text }} as bigint) % 86400000 = 0
                then date_from_unix_date(try_cast(div(try_cast({{ text }} as bigint), 86400000) as int))
            when trim({{ text }}) rlike '^[+-]?[0-9]{4,}-[0-9]{1,2}-[0-9]{1,2}([ T]00:00(:00(\\.0*)?)?)?$'
                then try_cast(trim({{ text }}) as date)
        end
    {%- elif target == 'timestamp' -%}
        case
            {%- if with_connect %}
            when {{ base }} in ('org.apache.kafka.connect.data.timestamp', 'io.debezium.time.timestamp')
                then timestamp_micros(try_multiply(try_cast({{ text }} as bigint), 1000))
            when {{ base }} = 'io.debezium.time.microtimestamp'
                then timestamp_micros(try_cast({{ text }} as bigint))
            when {{ base }} = 'io.debezium.time.nanotimestamp'
                then timestamp_micros(try_cast(floor(try_cast({{ text }} as decimal(38, 0)) / 1000) as bigint))
            when {{ base }} in ('org.apache.kafka.connect.data.date', 'io.debezium.time.date')
                then try_cast(date_from_unix_date(try_cast({{ text }} as int)) as timestamp)
            {%- endif %}
            when trim({{ text }}) rlike '^[0-9]{13}\\.[0-9]{9}$'
                -- Dataworks: 13-digit epoch milliseconds . 9 digits of nanoseconds of the second
                then timestamp_micros(try_add(
                    try_multiply(div(try_cast(split_part(trim({{ text }}), '.', 1) as bigint), 1000), 1000000),
                    div(try_cast(split_part(trim({{ text }}), '.', 2) as bigint), 1000)
                ))
            when trim({{ text }}) rlike '^[+-]?[0-9]+(\\.[0-9]*)?$'
                then {{ cdc_epoch_to_timestamp('trim(' ~ text ~ ')') }}
            else try_cast(trim({{ text }}) as timestamp)
        end
    {%- elif target == 'binary' -%}
        {{ cdc_base64_binary(text) }}
    {%- elif not with_connect -%}
        {{ text }}
    {%- else -%}
        case
            when {{ base }} in ('org.apache.kafka.connect.data.time', 'io.debezium.time.time')
                then {{ cdc_time_of_day_text(text, 3) }}
            when {{ base }} = 'io.debezium.time.microtime'
                then {{ cdc_time_of_day_text(text, 6) }}
            when {{ base }} = 'io.debezium.time.nanotime'
                then {{ cdc_time_of_day_text(text, 9) }}
            else {{ text }}
        end
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


{% macro cdc_wider_spark_type(left_type, right_type) %}
    {#-
        The narrowest Spark type (text) that holds the values of both types: integers widen to
        bigint and to decimal(p,s) with enough integer and fraction digits (capped at 38, integer
        digits first), any number with float/double gives double, date with timestamp gives
        timestamp, anything else mixed gives string. Null inputs are ignored.
    -#}
    {%- set numeric_types = "('boolean', 'int', 'bigint', 'float', 'double')" -%}
    {%- set integer_digits = "case {t} when 'boolean' then 1 when 'int' then 10 when 'bigint' then 19 else try_cast(regexp_extract({t}, '\\\\((\\\\d+)', 1) as int) - try_cast(regexp_extract({t}, ',(\\\\d+)\\\\)', 1) as int) end" -%}
    {%- set fraction_digits = "coalesce(try_cast(regexp_extract({t}, ',(\\\\d+)\\\\)', 1) as int), 0)" -%}
    {%- set wide_integer_digits = 'greatest(' ~ integer_digits.replace('{t}', left_type) ~ ', ' ~ integer_digits.replace('{t}', right_type) ~ ')' -%}
    {%- set wide_fraction_digits = 'greatest(' ~ fraction_digits.replace('{t}', left_type) ~ ', ' ~ fraction_digits.replace('{t}', right_type) ~ ')' -%}
    case
        when {{ left_type }} is null then {{ right_type }}
        when {{ right_type }} is null or {{ left_type }} = {{ right_type }} then {{ left_type }}
        when {{ left_type }} = 'string' or {{ right_type }} = 'string' then 'string'
        when ({{ left_type }} in {{ numeric_types }} or {{ left_type }} like 'decimal(%')
            and ({{ right_type }} in {{ numeric_types }} or {{ right_type }} like 'decimal(%')
            then case
                when {{ left_type }} in ('float', 'double') or {{ right_type }} in ('float', 'double') then 'double'
                when {{ left_type }} not like 'decimal(%' and {{ right_type }} not like 'decimal(%'
                    then case
                        when 'bigint' in ({{ left_type }}, {{ right_type }}) then 'bigint'
                        else 'int'
                    end
                when {{ wide_integer_digits }} + {{ wide_fraction_digits }} <= 38
                    then concat(
                        'decimal(', {{ wide_integer_digits }} + {{ wide_fraction_digits }}, ',',
                        {{ wide_fraction_digits }}, ')'
                    )
                else concat('decimal(38,', greatest(0, 38 - {{ wide_integer_digits }}), ')')
            end
        when {{ left_type }} in ('date', 'timestamp') and {{ right_type }} in ('date', 'timestamp') then 'timestamp'
        else 'string'
    end
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
