{#-
    What the row changes of each landing show of their tables' columns, aggregated per landing: one
    row per table, column, position, type metadata (the source type and JDBC code a change carried)
    and kind of image (a full insert/snapshot image or not), with the Spark types its values need
    and where it was first and last seen. Incremental: a build adds the new landings' partitions,
    so cdc_columns reads this small table instead of every column of every change.
-#}
{{
    config(
        materialized='incremental',
        incremental_strategy='insert_overwrite',
        partition_by=['landing_seq'],
    )
}}

with

changes as (
    select
        source_database,
        source_table,
        op,
        before,
        after,
        column_types,
        column_jdbc_types,
        -- the columns a change shows: its type map's (in order), then its images'
        array_union(
            coalesce(map_keys(column_types), array()),
            array_union(coalesce(map_keys(after), array()), coalesce(map_keys(before), array()))
        ) as change_column_names,
        event_ts,
        landing_seq,
        {{ cdc_event_position() }} as event_position
    from {{ ref('cdc_changes') }}
    where landing_seq > {{ cdc_watermark() }}
),

change_observations as (
    -- every column of every change: its type metadata, position and values
    select
        changes.source_database,
        changes.source_table,
        change_column.column_name,
        change_column.column_index + 1 as column_position,
        changes.column_types[change_column.column_name] as source_type,
        changes.column_jdbc_types[change_column.column_name] as jdbc_type,
        array(changes.after[change_column.column_name], changes.before[change_column.column_name])
            as column_values,
        changes.op in ('insert', 'snapshot') as is_full_image,
        changes.event_ts,
        changes.event_position,
        changes.landing_seq
    from changes
        lateral view posexplode(changes.change_column_names) change_column as column_index, column_name
),

typed_observations as (
    select
        *,
        case
            when source_type is not null or jdbc_type is not null
                then {{ cdc_spark_type_for('source_type', 'jdbc_type') }}
        end as declared_spark_type
    from change_observations
),

sized_observations as (
    select
        *,
        {{ cdc_is_unsized_decimal('declared_spark_type', 'source_type') }} as is_unsized_decimal
    from typed_observations
),

widened_observations as (
    select
        *,
        {{ cdc_observed_spark_types('declared_spark_type', 'is_unsized_decimal', 'column_values') }}
            as observed_spark_types
    from sized_observations
)

select
    source_database,
    source_table,
    column_name,
    column_position,
    source_type,
    jdbc_type,
    is_full_image,
    -- collect_set: an aggregation buffer holds the few distinct type lists, not one per observation
    array_sort(array_distinct(flatten(collect_set(observed_spark_types)))) as observed_spark_types,
    bool_or(is_unsized_decimal) as is_unsized_decimal,
    count(*) as observations,
    min(event_position) as first_position,
    max(event_position) as last_position,
    min(event_ts) as first_event_ts,
    max(event_ts) as last_event_ts,
    landing_seq
from widened_observations
group by
    landing_seq,
    source_database,
    source_table,
    column_name,
    column_position,
    source_type,
    jdbc_type,
    is_full_image
