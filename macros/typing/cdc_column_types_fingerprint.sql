{% macro cdc_column_types_fingerprints(columns_relation) %}
    {#-
        One row per source table of `columns_relation` (cdc_columns): a hash of its columns' names,
        Spark types and declared source types, which is all a value's conversion check depends on
        besides the value. int_cdc__conversion_checks checks a table's old values again only when
        its hash changes.
    -#}
    select
        source_database,
        source_table,
        sha2(
            to_json(array_sort(collect_list(
                named_struct(
                    'column_key', lower(column_name),
                    'spark_type', spark_type,
                    'source_type', source_type
                )
            ))),
            256
        ) as types_fingerprint
    from {{ columns_relation }}
    group by source_database, source_table
{% endmacro %}
