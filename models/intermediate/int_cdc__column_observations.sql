{#-
    What the row changes of each landing show of their tables' columns, aggregated per landing: one
    row per table, column, position, type metadata (the source type and JDBC code a change carried)
    and kind of image (a full insert/snapshot image or not), with the Spark types its values need
    and where it was first and last seen. Incremental: a build adds the new landings' partitions,
    so cdc_columns reads this small table instead of every column of every change.

    The type text of a column is the same in almost every change, so its declared Spark type
    (cdc_spark_type_for, several regular expressions) is derived once per distinct source type and
    JDBC code and broadcast to the exploded columns; a value is looked at only in the columns whose
    type depends on their values (int/bigint widened by large values, unsized DECIMALs), and the
    few types the values need are collected per group.
-#}
{{
    config(
        materialized=cdc_materialized('incremental'),
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
    from {{ ref('int_cdc__changes') }}
    where
        key_problem is null
        and landing_seq > {{ cdc_watermark() }}
),

type_metadata as (
    -- every (source type, JDBC code) pair the changes carry for a column: a column that is in
    -- neither map has neither, and no declared type
    select distinct
        changes.column_types[typed_column.column_name] as source_type,
        changes.column_jdbc_types[typed_column.column_name] as jdbc_type
    from changes
        lateral view explode(
            array_union(
                coalesce(map_keys(changes.column_types), array()),
                coalesce(map_keys(changes.column_jdbc_types), array())
            )
        ) typed_column as column_name
),

declared_types as (
    select
        source_type,
        jdbc_type,
        case
            when source_type is not null or jdbc_type is not null
                then {{ cdc_spark_type_for('source_type', 'jdbc_type') }}
        end as declared_spark_type
    from type_metadata
),

sized_types as (
    select
        *,
        {{ cdc_is_unsized_decimal('declared_spark_type', 'source_type') }} as is_unsized_decimal
    from declared_types
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
        changes.after[change_column.column_name] as after_text,
        changes.before[change_column.column_name] as before_text,
        changes.op in ('insert', 'snapshot') as is_full_image,
        changes.event_ts,
        changes.event_position,
        changes.landing_seq
    from changes
        lateral view posexplode(changes.change_column_names) change_column as column_index, column_name
),

typed_observations as (
    -- sized_types has a row per distinct type: broadcast to the join (the hint's argument is a
    -- relation, which sqlfluff reads as an unqualified column)
    select /*+ broadcast(sized_types) */  -- noqa: RF02
        change_observations.*,
        sized_types.declared_spark_type,
        sized_types.is_unsized_decimal
    from change_observations
    left join sized_types
        on
            change_observations.source_type <=> sized_types.source_type
            and change_observations.jdbc_type <=> sized_types.jdbc_type
),

valued_observations as (
    select
        *,
        -- the types the after and the before value need, through one lambda (its code once, not
        -- twice, keeps the stage's generated method small enough for the JIT compiler)
        transform(
            array(after_text, before_text),
            value_text -> {{ cdc_value_spark_type('value_text', 'declared_spark_type', 'is_unsized_decimal') }}
        ) as value_spark_types
    from typed_observations
),

grouped_observations as (
    select
        source_database,
        source_table,
        column_name,
        column_position,
        source_type,
        jdbc_type,
        is_full_image,
        -- one declared type per source type and JDBC code
        declared_spark_type,
        is_unsized_decimal,
        -- collect_set: a buffer holds the few distinct types the values need, nulls left out
        array_union(collect_set(value_spark_types[0]), collect_set(value_spark_types[1])) as value_spark_types,
        count(*) as observations,
        min(event_position) as first_position,
        max(event_position) as last_position,
        min(event_ts) as first_event_ts,
        max(event_ts) as last_event_ts,
        landing_seq
    from valued_observations
    group by
        landing_seq,
        source_database,
        source_table,
        column_name,
        column_position,
        source_type,
        jdbc_type,
        is_full_image,
        declared_spark_type,
        is_unsized_decimal
)

select
    source_database,
    source_table,
    column_name,
    column_position,
    source_type,
    jdbc_type,
    is_full_image,
    {{ cdc_observed_spark_types('declared_spark_type', 'is_unsized_decimal', 'value_spark_types') }}
        as observed_spark_types,
    is_unsized_decimal,
    observations,
    first_position,
    last_position,
    first_event_ts,
    last_event_ts,
    landing_seq
from grouped_observations
