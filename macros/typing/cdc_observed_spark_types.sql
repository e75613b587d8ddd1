{% macro cdc_is_unsized_decimal(declared_spark_type, source_type) %}
    {#-
        True for a DECIMAL declared without precision (OMS light types, Dataworks, a bare JDBC
        DECIMAL/NUMERIC code): its Spark type is sized from the values it holds.
    -#}
    (
        {{ declared_spark_type }} = 'decimal(38,18)'
        and coalesce({{ source_type }}, '') not rlike '\\(|^io\\.debezium'
    )
{% endmacro %}


{% macro cdc_integer_type_needed(value_text) %}
    {#-
        The wider type one value of an int or bigint column needs: null when the value is null or
        fits in int, 'bigint' when it fits in bigint, 'decimal(38,0)' for an integer of up to 38
        digits beyond that, null for any other text (not a number: its conversion check reports
        it, it does not widen the column).
    -#}
    case
        when {{ value_text }} is null or try_cast({{ value_text }} as int) is not null then null
        when try_cast({{ value_text }} as bigint) is not null then 'bigint'
        when trim({{ value_text }}) rlike '^[+-]?[0-9]{1,38}$' then 'decimal(38,0)'
    end
{% endmacro %}


{% macro cdc_value_spark_type(value_text, declared_spark_type, is_unsized_decimal) %}
    {#-
        The Spark type one value needs besides its column's declared type (text, null when it
        needs none): a wider integer type for an int or bigint column (cdc_integer_type_needed),
        the decimal(p,s) the value is written with for an unsized DECIMAL
        (cdc_decimal_type_of_value). Only these two kinds of column look at their values, so
        the value work is done for them alone.
    -#}
    case
        when {{ declared_spark_type }} in ('int', 'bigint') then {{ cdc_integer_type_needed(value_text) }}
        when {{ is_unsized_decimal }} then {{ cdc_decimal_type_of_value(value_text) }}
    end
{% endmacro %}


{% macro cdc_observed_spark_types(declared_spark_type, is_unsized_decimal, value_spark_types) %}
    {#-
        The Spark types (array<string>, sorted, distinct) that observations of a column need: its
        declared type, with the types its values need besides it (cdc_value_spark_type, e.g. bigint
        for an int column holding a value beyond int); for an unsized DECIMAL only the types its
        values need (the placeholder decimal(38,18) is not a type the column needs); none without
        type metadata. cdc_columns takes the widest of all.
    -#}
    array_sort(array_distinct(concat(
        case
            when {{ is_unsized_decimal }} or {{ declared_spark_type }} is null then cast(array() as array<string>)
            else array({{ declared_spark_type }})
        end,
        {{ value_spark_types }}
    )))
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
