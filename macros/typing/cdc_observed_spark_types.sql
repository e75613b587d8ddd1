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
