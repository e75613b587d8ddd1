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
-#}
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
        {{ cdc_event_position() }} as event_position
    from {{ ref('cdc_changes') }}
),

ddl_statements as (
    select
        *,
        cast(null as int) as row_index
    from {{ ref('cdc_ddl') }}
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
        'seen' as observation,
        'change' as observed_in,
        changes.event_ts,
        changes.event_position
    from changes
        lateral view posexplode(changes.change_column_names) change_column as column_index, column_name
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
        cast(array() as array<string>) as column_values,
        'seen' as observation,
        'ddl' as observed_in,
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
        cast(array() as array<string>) as column_values,
        case when column_change.action = 'drop' then 'dropped' else 'seen' end as observation,
        'ddl' as observed_in,
        ddl.event_ts,
        ddl.event_position
    from ddl
        lateral view explode(ddl.column_changes) column_changes as column_change
    where column_change.column_name is not null and column_change.column_name != ''
),

own_observations as (
    select * from change_observations
    union all
    select * from ddl_type_observations
    union all
    select * from ddl_text_observations
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
        own_observations.column_values,
        own_observations.observation,
        'rename' as observed_in,
        renames.event_ts,
        renames.event_position
    from own_observations
    inner join renames
        on
            own_observations.source_database <=> renames.from_database
            and own_observations.source_table = renames.from_table
            and own_observations.event_position < renames.event_position
),

typed_observations as (
    select
        *,
        case
            when source_type is not null or jdbc_type is not null
                then {{ cdc_spark_type_for('source_type', 'jdbc_type') }}
        end as declared_spark_type
    from observations
),

sized_observations as (
    select
        *,
        -- DECIMAL without precision (OMS light types, Dataworks, a bare JDBC DECIMAL/NUMERIC code):
        -- sized from the values it holds
        declared_spark_type = 'decimal(38,18)'
        and coalesce(source_type, '') not rlike '\\(|^io\\.debezium' as is_unsized_decimal
    from typed_observations
),

widened_observations as (
    -- an integer column whose values do not fit its type is widened to what they need; an
    -- unsized DECIMAL column takes the precision and scale its values need
    select
        *,
        case
            when declared_spark_type in ('int', 'bigint')
                then array_union(
                    array(declared_spark_type),
                    filter(
                        transform(
                            column_values,
                            column_value -> case
                                when column_value is null or try_cast(column_value as int) is not null then null
                                when try_cast(column_value as bigint) is not null then 'bigint'
                                when trim(column_value) rlike '^[+-]?[0-9]{1,38}$' then 'decimal(38,0)'
                            end
                        ),
                        needed_type -> needed_type is not null
                    )
                )
            when is_unsized_decimal
                then filter(
                    transform(
                        column_values,
                        column_value -> {{ cdc_decimal_type_of_value('column_value') }}
                    ),
                    needed_type -> needed_type is not null
                )
            when declared_spark_type is not null then array(declared_spark_type)
            else cast(array() as array<string>)
        end as observed_spark_types
    from sized_observations
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
            event_position
        from changes
        where op in ('insert', 'snapshot')

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
        max_by(column_name, event_position) filter (where observation = 'seen') as column_name,
        array_sort(collect_set(column_name)) as column_name_variants,
        max_by(column_position, event_position) filter (where column_position is not null)
            as latest_position,
        max_by(source_type, event_position) filter (where source_type is not null) as source_type,
        array_sort(collect_set(source_type)) as source_types,
        max_by(try_cast(jdbc_type as int), event_position) filter (
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
        min(event_position) filter (where observation = 'seen') as first_seen_position,
        max(event_position) filter (where observation = 'seen') as last_seen_position,
        max(event_position) filter (where observation = 'dropped') as dropped_position,
        min(event_ts) filter (where observation = 'seen') as first_seen_ts,
        max(event_ts) filter (where observation = 'seen') as last_seen_ts,
        max(event_ts) filter (where observation = 'dropped') as dropped_ts
    from widened_observations
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
