{#-
    What the row changes of each landing show of their tables' columns, aggregated per landing: one
    row per table, column, position, type metadata (the source type and JDBC code a change carried)
    and kind of image (a full insert/snapshot image or not), with the Spark types its values need
    and where it was first and last seen. Incremental: a build adds the new landings' partitions,
    so cdc_columns reads this small table instead of every column of every change.

    The changes of a table almost all look alike: the same type maps, the same image columns. So
    the changes are counted per shape (kind of image, type maps, image column names) without
    exploding their columns, and only the few shapes are exploded into columns. A column's
    declared Spark type (cdc_spark_type_for, several regular expressions) is derived once per
    distinct pair of type maps; a value is looked at only in the columns whose type depends on
    their values (int/bigint widened by large values, unsized DECIMALs), listed per pair of type
    maps and broadcast to the changes, and the few types those values need are collected per shape.
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
        op in ('insert', 'snapshot') as is_full_image,
        -- the type maps as entries: comparable, so a change's pair can be grouped and joined
        coalesce(map_entries(column_types), array()) as type_entries,
        coalesce(map_entries(column_jdbc_types), array()) as jdbc_entries,
        before,
        after,
        event_ts,
        landing_seq,
        {{ cdc_event_position() }} as event_position
    from {{ ref('int_cdc__changes') }}
    where
        key_problem is null
        and landing_seq > {{ cdc_watermark() }}
),

type_map_pairs as (
    -- every distinct pair of type maps the changes carry (a handful per table)
    select distinct
        type_entries,
        jdbc_entries
    from changes
),

value_rules as (
    -- per pair of type maps, the columns whose values decide the types they need: those whose
    -- declared type is int or bigint, or an unsized DECIMAL (one lambda per pair, no explode)
    select
        type_entries,
        jdbc_entries,
        filter(
            transform(
                array_union(
                    transform(type_entries, type_entry -> type_entry.key),
                    transform(jdbc_entries, jdbc_entry -> jdbc_entry.key)
                ),
                typed_column -> {{ cdc_let(
                    'map_column',
                    "named_struct('column_name', typed_column, "
                    ~ "'source_type', map_from_entries(type_entries)[typed_column], "
                    ~ "'jdbc_type', map_from_entries(jdbc_entries)[typed_column])",
                    cdc_let(
                        'declared_spark_type',
                        cdc_spark_type_for('map_column.source_type', 'map_column.jdbc_type'),
                        "named_struct('column_name', map_column.column_name, "
                        ~ "'declared_spark_type', declared_spark_type, "
                        ~ "'is_unsized_decimal', "
                        ~ cdc_is_unsized_decimal('declared_spark_type', 'map_column.source_type') ~ ")"
                    )
                ) }}
            ),
            value_column -> value_column.declared_spark_type in ('int', 'bigint') or value_column.is_unsized_decimal
        ) as value_columns
    from type_map_pairs
),

valued_changes as (
    -- the types a change's values need, for those columns only (the hint's argument is a
    -- relation, which sqlfluff reads as an unqualified column)
    select /*+ broadcast(value_rules) */  -- noqa: RF02
        changes.*,
        filter(
            transform(
                coalesce(value_rules.value_columns, array()),
                value_column -> named_struct(
                    'column_name', value_column.column_name,
                    -- the types the after and the before value need, through one lambda (its
                    -- code once, not twice, keeps the stage's generated method small)
                    'spark_types', filter(
                        transform(
                            array(changes.after[value_column.column_name], changes.before[value_column.column_name]),
                            value_text -> {{ cdc_value_spark_type(
                                'value_text', 'value_column.declared_spark_type', 'value_column.is_unsized_decimal'
                            ) }}
                        ),
                        value_spark_type -> value_spark_type is not null
                    )
                )
            ),
            value_need -> size(value_need.spark_types) > 0
        ) as value_needs
    from changes
    left join value_rules
        on
            changes.type_entries = value_rules.type_entries
            and changes.jdbc_entries = value_rules.jdbc_entries
),

shapes as (
    -- the changes of one landing and table counted per shape: kind of image, type maps, image
    -- columns; collect_set keeps the few distinct value needs
    select
        landing_seq,
        source_database,
        source_table,
        is_full_image,
        type_entries,
        jdbc_entries,
        coalesce(map_keys(after), array()) as after_columns,
        coalesce(map_keys(before), array()) as before_columns,
        flatten(collect_set(value_needs)) as value_needs,
        count(*) as observations,
        min(event_position) as first_position,
        max(event_position) as last_position,
        min(event_ts) as first_event_ts,
        max(event_ts) as last_event_ts
    from valued_changes
    group by
        landing_seq,
        source_database,
        source_table,
        is_full_image,
        type_entries,
        jdbc_entries,
        coalesce(map_keys(after), array()),
        coalesce(map_keys(before), array())
),

shape_columns as (
    -- every column of every shape: its type metadata, its position and the types its values need
    select
        shapes.landing_seq,
        shapes.source_database,
        shapes.source_table,
        shape_column.column_name,
        shape_column.column_index + 1 as column_position,
        map_from_entries(shapes.type_entries)[shape_column.column_name] as source_type,
        map_from_entries(shapes.jdbc_entries)[shape_column.column_name] as jdbc_type,
        shapes.is_full_image,
        flatten(transform(
            filter(shapes.value_needs, value_need -> value_need.column_name = shape_column.column_name),
            value_need -> value_need.spark_types
        )) as value_spark_types,
        shapes.observations,
        shapes.first_position,
        shapes.last_position,
        shapes.first_event_ts,
        shapes.last_event_ts
    from shapes
        -- the columns a change shows: its type map's (in order), then its images'
        lateral view posexplode(
            array_union(
                transform(shapes.type_entries, type_entry -> type_entry.key),
                array_union(shapes.after_columns, shapes.before_columns)
            )
        ) shape_column as column_index, column_name
),

typed_shape_columns as (
    select
        *,
        case
            when source_type is not null or jdbc_type is not null
                then {{ cdc_spark_type_for('source_type', 'jdbc_type') }}
        end as declared_spark_type
    from shape_columns
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
        {{ cdc_is_unsized_decimal('declared_spark_type', 'source_type') }} as is_unsized_decimal,
        array_distinct(flatten(collect_list(value_spark_types))) as value_spark_types,
        sum(observations) as observations,
        min(first_position) as first_position,
        max(last_position) as last_position,
        min(first_event_ts) as first_event_ts,
        max(last_event_ts) as last_event_ts,
        landing_seq
    from typed_shape_columns
    group by
        landing_seq,
        source_database,
        source_table,
        column_name,
        column_position,
        source_type,
        jdbc_type,
        is_full_image,
        declared_spark_type
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
