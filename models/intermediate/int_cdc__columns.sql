{#-
    One row per column of every source table, from all the type metadata the messages carry
    (column_types / column_jdbc_types of every change and DDL message: Canal mysqlType/sqlType,
    CloudCanal dbValType/jdbcType, KafkaRiverCanal t, Debezium schema, DTS dataTypeNumber, OMS
    __light_type, Dataworks schema.column) and from DDL text (CREATE TABLE columns, ALTER TABLE
    ADD/MODIFY/CHANGE/DROP/RENAME COLUMN). Columns without any type metadata are strings.

    spark_type is the widest type the column had (a type change widens: int -> bigint -> decimal,
    anything with varchar -> string), also widened when an integer column holds values beyond its
    type (OMS BIGINT, unsigned values typed without `unsigned`). is_current says whether the column
    is in the table now: false after a DROP COLUMN (or CHANGE/RENAME COLUMN away) that comes after
    its last value, or when the table's latest full column list (an insert/snapshot image, CREATE
    TABLE, a DDL message's column list) no longer has it. A table
    renamed into another passes its columns on to the new name.

    The row changes' observations come pre-aggregated per landing from the incremental
    int_cdc__column_observations, so a build reads a small table, not every change again.
-#}
with

ddl_statements as (
    select
        *,
        cast(null as int) as row_index
    from {{ ref('int_cdc__ddl') }}
    where not is_database_level and source_table is not null
),

ddl as (
    select
        source_database,
        source_table,
        ddl_type,
        column_changes,
        renamed_tables,
        column_types,
        column_jdbc_types,
        event_ts,
        {{ cdc_event_position() }} as event_position
    from ddl_statements
),

change_observations as (
    -- the columns the row changes showed (per landing, type metadata and kind of image)
    select
        source_database,
        source_table,
        column_name,
        column_position,
        source_type,
        jdbc_type,
        observed_spark_types,
        is_unsized_decimal,
        'seen' as observation,
        'change' as observed_in,
        first_event_ts,
        last_event_ts,
        first_position,
        last_position
    from {{ ref('int_cdc__column_observations') }}
),

ddl_type_observations as (
    -- the column list a DDL message carries (CloudCanal/Canal mysqlType, Debezium tableChanges)
    select
        ddl.source_database,
        ddl.source_table,
        ddl_column.column_name,
        ddl_column.column_index + 1 as column_position,
        ddl.column_types[ddl_column.column_name] as source_type,
        ddl.column_jdbc_types[ddl_column.column_name] as jdbc_type,
        'seen' as observation,
        ddl.event_ts,
        ddl.event_position
    from ddl
        lateral view posexplode(map_keys(ddl.column_types)) ddl_column as column_index, column_name
    where size(ddl.column_types) > 0
),

ddl_text_observations as (
    -- the columns a DDL statement's text adds, changes or drops
    select
        ddl.source_database,
        ddl.source_table,
        column_change.column_name,
        column_change.column_position,
        column_change.source_type,
        cast(null as string) as jdbc_type,
        case when column_change.action = 'drop' then 'dropped' else 'seen' end as observation,
        ddl.event_ts,
        ddl.event_position
    from ddl
        lateral view explode(ddl.column_changes) column_changes as column_change
    where column_change.column_name is not null and column_change.column_name != ''
),

ddl_observations as (
    select * from ddl_type_observations
    union all
    select * from ddl_text_observations
),

typed_ddl_observations as (
    select
        *,
        case
            when source_type is not null or jdbc_type is not null
                then {{ cdc_spark_type_for('source_type', 'jdbc_type') }}
        end as declared_spark_type
    from ddl_observations
),

sized_ddl_observations as (
    select
        *,
        {{ cdc_is_unsized_decimal('declared_spark_type', 'source_type') }} as is_unsized_decimal
    from typed_ddl_observations
),

own_observations as (
    select * from change_observations

    union all

    -- a DDL statement holds no values: its observation needs just its declared type
    select
        source_database,
        source_table,
        column_name,
        column_position,
        source_type,
        jdbc_type,
        {{ cdc_observed_spark_types('declared_spark_type', 'is_unsized_decimal', 'cast(array() as array<string>)') }}
            as observed_spark_types,
        is_unsized_decimal,
        observation,
        'ddl' as observed_in,
        event_ts as first_event_ts,
        event_ts as last_event_ts,
        event_position as first_position,
        event_position as last_position
    from sized_ddl_observations
),

renames as (
    select
        coalesce(renamed.from_database, ddl.source_database) as from_database,
        renamed.from_table,
        coalesce(renamed.to_database, ddl.source_database) as to_database,
        renamed.to_table,
        ddl.event_ts,
        ddl.event_position
    from ddl
        lateral view explode(ddl.renamed_tables) renamed_tables as renamed
),

observations as (
    select * from own_observations

    union all

    -- a renamed table's columns (as seen before the rename) pass to the new name
    select
        renames.to_database as source_database,
        renames.to_table as source_table,
        own_observations.column_name,
        own_observations.column_position,
        own_observations.source_type,
        own_observations.jdbc_type,
        own_observations.observed_spark_types,
        own_observations.is_unsized_decimal,
        own_observations.observation,
        'rename' as observed_in,
        renames.event_ts as first_event_ts,
        renames.event_ts as last_event_ts,
        renames.event_position as first_position,
        renames.event_position as last_position
    from own_observations
    inner join renames
        on
            own_observations.source_database <=> renames.from_database
            and own_observations.source_table = renames.from_table
            and own_observations.first_position < renames.event_position
),

table_full_images as (
    -- per table, the latest complete column list: an insert or snapshot image (updates and
    -- deletes may carry only some columns: KafkaRiverCanal, SharePlex), a CREATE TABLE, a DDL
    -- message with its column list, a rename into it
    select
        source_database,
        source_table,
        max(event_position) as full_image_position
    from (
        select
            source_database,
            source_table,
            last_position as event_position
        from {{ ref('int_cdc__column_observations') }}
        where is_full_image

        union all

        select
            source_database,
            source_table,
            event_position
        from ddl
        where size(column_types) > 0 or ddl_type = 'CREATE'

        union all

        select
            to_database as source_database,
            to_table as source_table,
            event_position
        from renames
    ) as full_images
    group by source_database, source_table
),

column_facts as (
    select
        source_database,
        source_table,
        lower(column_name) as column_key,
        max_by(column_name, last_position) filter (where observation = 'seen') as column_name,
        array_sort(collect_set(column_name)) as column_name_variants,
        max_by(column_position, last_position) filter (where column_position is not null)
            as latest_position,
        max_by(source_type, last_position) filter (where source_type is not null) as source_type,
        array_sort(collect_set(source_type)) as source_types,
        max_by(try_cast(jdbc_type as int), last_position) filter (
            where try_cast(jdbc_type as int) is not null
        ) as message_jdbc_type,
        coalesce(
            aggregate(
                array_sort(array_distinct(flatten(collect_list(observed_spark_types)))),
                cast(null as string),
                (wider_type, next_type) -> {{ cdc_wider_spark_type('wider_type', 'next_type') }}
            ),
            max(case when is_unsized_decimal then 'decimal(38,18)' end)
        ) as widest_spark_type,
        array_sort(collect_set(observed_in)) as observed_in,
        min(first_position) filter (where observation = 'seen') as first_seen_position,
        max(last_position) filter (where observation = 'seen') as last_seen_position,
        max(last_position) filter (where observation = 'dropped') as dropped_position,
        min(first_event_ts) filter (where observation = 'seen') as first_seen_ts,
        max(last_event_ts) filter (where observation = 'seen') as last_seen_ts,
        max(last_event_ts) filter (where observation = 'dropped') as dropped_ts
    from observations
    group by source_database, source_table, lower(column_name)
),

column_status as (
    select
        column_facts.*,
        case
            when column_facts.dropped_position >= column_facts.last_seen_position then 'dropped'
            when column_facts.last_seen_position < table_full_images.full_image_position then 'absent'
            else 'current'
        end as column_status
    from column_facts
    left join table_full_images
        on
            column_facts.source_database <=> table_full_images.source_database
            and column_facts.source_table = table_full_images.source_table
    where column_facts.last_seen_position is not null
),

typed_columns as (
    select
        *,
        coalesce(message_jdbc_type, {{ cdc_jdbc_type_for('source_type') }}) as jdbc_type
    from column_status
)

select
    source_database,
    source_table,
    column_name,
    column_name_variants,
    cast(row_number() over (
        partition by source_database, source_table
        order by latest_position asc nulls last, first_seen_position asc, column_key asc
    ) as int) as ordinal_position,
    source_type,
    source_types,
    jdbc_type,
    {{ cdc_jdbc_type_name('jdbc_type') }} as jdbc_type_name,
    message_jdbc_type is null as is_jdbc_type_derived,
    coalesce(widest_spark_type, 'string') as spark_type,
    column_status = 'current' as is_current,
    column_status,
    observed_in,
    first_seen_ts,
    last_seen_ts,
    case when column_status = 'dropped' then dropped_ts end as dropped_ts
from typed_columns
