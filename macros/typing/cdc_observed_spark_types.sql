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


{% macro cdc_observed_spark_types(declared_spark_type, is_unsized_decimal, column_values) %}
    {#-
        The Spark types one observation of a column needs (array<string>): its declared type, widened
        when an integer column holds values beyond it; for an unsized DECIMAL, the precision and
        scale each value needs; none without type metadata. cdc_columns takes the widest of all.
    -#}
    case
        when {{ declared_spark_type }} in ('int', 'bigint')
            then array_union(
                array({{ declared_spark_type }}),
                filter(
                    transform(
                        {{ column_values }},
                        column_value -> case
                            when column_value is null or try_cast(column_value as int) is not null then null
                            when try_cast(column_value as bigint) is not null then 'bigint'
                            when trim(column_value) rlike '^[+-]?[0-9]{1,38}$' then 'decimal(38,0)'
                        end
                    ),
                    needed_type -> needed_type is not null
                )
            )
        when {{ is_unsized_decimal }}
            then filter(
                transform(
                    {{ column_values }},
                    column_value -> {{ cdc_decimal_type_of_value('column_value') }}
                ),
                needed_type -> needed_type is not null
            )
        when {{ declared_spark_type }} is not null then array({{ declared_spark_type }})
        else cast(array() as array<string>)
    end
{% endmacro %}
