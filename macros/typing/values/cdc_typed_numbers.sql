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


{% macro cdc_typed_integer(number_text, target) %}
    {#-
        An integer column's value: the number text (cdc_numeric_text) cast to `target` (int,
        bigint, smallint, tinyint); null when it is not an integer or does not fit.
    -#}
    try_cast({{ number_text }} as {{ target }})
{% endmacro %}


{% macro cdc_typed_decimal(number_text, target) %}
    {#-
        A decimal(p,s) column's value, exact: null when the number text (cdc_numeric_text) needs
        more fraction digits than s (it is never rounded) or more integer digits than p - s.
    -#}
    {%- set scale = (target.split(',')[1].rstrip(')') if ',' in target else '0') | int -%}
    {{ cdc_let('typed_number', number_text,
        'case when ' ~ cdc_decimal_scale_needed('typed_number') ~ ' <= ' ~ scale
        ~ ' then try_cast(typed_number as ' ~ target ~ ') end') }}
{% endmacro %}


{% macro cdc_typed_floating(number_text, target) %}
    {#-
        A float or double column's value: the number text (cdc_numeric_text) cast to `target`;
        null when it overflows to infinity or is not a number, unless the text itself says NaN or
        Infinity.
    -#}
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
    {{ cdc_let('typed_number', number_text, checked) }}
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
