{#-
    One row per value that does not convert to its column's Spark type (cdc_columns.spark_type),
    for every version of every row of every table in one pass: the typed tables of
    cdc_typed_current / cdc_typed_history hold null there, and this model says which value it was
    (table, column, key, raw text, target type). Same conversion as the typed tables (the macro
    cdc_typed_value), so the two always agree. The Spark types in use are read from cdc_columns at
    execution time (one CASE branch per type).

    A table, not a view: its SQL (one conversion per Spark type) is longer than the Derby
    metastore keeps for a view's text (32,700 characters).
-#}
{%- set spark_types = cdc_spark_types_in_use() %}
-- depends_on: {{ ref('cdc_columns') }}

with

table_columns as (
    select
        source_database,
        source_table,
        lower(column_name) as column_key,
        column_name,
        spark_type,
        source_type
    from {{ ref('cdc_columns') }}
),

change_types as (
    select
        change_id,
        column_types
    from {{ ref('cdc_changes') }}
),

versions as (
    select
        row_versions.source_database,
        row_versions.source_table,
        row_versions.primary_key,
        row_versions.version_number,
        row_versions.row,
        row_versions.valid_from,
        row_versions.change_id,
        row_versions.source_format,
        change_types.column_types
    from {{ ref('cdc_history') }} as row_versions
    left join change_types on row_versions.change_id = change_types.change_id
),

version_values as (
    select
        versions.*,
        row_value.value_column,
        row_value.value_text
    from versions
        lateral view explode(versions.row) row_value as value_column, value_text
    where row_value.value_text is not null
),

typed_values as (
    select
        version_values.source_database,
        version_values.source_table,
        table_columns.column_name,
        version_values.primary_key,
        version_values.value_text,
        coalesce(
            try_element_at(version_values.column_types, version_values.value_column),
            table_columns.source_type
        ) as value_source_type,
        table_columns.spark_type,
        version_values.valid_from,
        version_values.version_number,
        version_values.change_id,
        version_values.source_format
    from version_values
    inner join table_columns
        on
            version_values.source_database <=> table_columns.source_database
            and version_values.source_table = table_columns.source_table
            and lower(version_values.value_column) = table_columns.column_key
),

checked_values as (
    select
        *,
        {% if spark_types -%}
        case spark_type
            {%- for spark_type in spark_types %}
            when '{{ spark_type }}'
                then {{ cdc_typed_value('value_text', spark_type, 'value_source_type') }} is null
            {%- endfor %}
            else false
        end
        {%- else -%}
        false
        {%- endif %} as is_failure
    from typed_values
)

select
    source_database,
    source_table,
    column_name,
    primary_key,
    value_text as raw_text,
    value_source_type as source_type,
    spark_type as target_type,
    concat(
        'the text cannot be read as ', spark_type,
        coalesce(' (source type ' || value_source_type || ')', '')
    ) as reason,
    valid_from,
    version_number,
    change_id,
    source_format
from checked_values
where is_failure
