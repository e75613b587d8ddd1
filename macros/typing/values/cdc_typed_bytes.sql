{% macro cdc_typed_binary(text) %}
    {#- A binary column's value: the bytes of a strict base64 text (cdc_base64_binary). -#}
    {{ cdc_base64_binary(text) }}
{% endmacro %}


{% macro cdc_typed_boolean(text) %}
    {#-
        A boolean column's value: 1/0, true/false, t/f, yes/no (Spark's cast), and a BIT(1) sent
        as base64 bytes (AQ== true, AA== false).
    -#}
    case
        when trim({{ text }}) = 'AQ==' then true
        when trim({{ text }}) = 'AA==' then false
        else try_cast(trim({{ text }}) as boolean)
    end
{% endmacro %}


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
