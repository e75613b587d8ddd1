{#-
    One row per source table name seen (in a row change or a DDL statement), with what became of
    it: live, dropped (DROP TABLE / ERASE) or renamed (RENAME TABLE, ALTER TABLE ... RENAME), by the
    latest of its lifecycle events (CREATE, ERASE, TRUNCATE, RENAME away or into, row change).
    rows_cleared_position says up to where its rows are gone (ERASE, TRUNCATE, RENAME away): the
    typed current tables leave out rows last changed before it, and a table renamed into another
    carries its rows changed after carried_rows_since_position to the new name.
-#}
with

ddl as (
    select
        *,
        cast(null as int) as row_index
    from {{ ref('cdc_ddl') }}
    where not is_database_level
),

table_changes as (
    select
        source_database,
        source_table,
        sum(change_count) as change_count,
        sum(row_image_change_count) as row_image_change_count,
        min(first_change_ts) as first_change_ts,
        max(last_change_ts) as last_change_ts,
        max(last_event_position) as last_event_position
    from {{ ref('int_cdc__table_changes') }}
    group by source_database, source_table
),

renames as (
    select
        coalesce(renamed.from_database, ddl.source_database) as from_database,
        renamed.from_table,
        coalesce(renamed.to_database, ddl.source_database) as to_database,
        renamed.to_table,
        ddl.event_ts,
        {{ cdc_event_position('ddl') }} as event_position
    from ddl
        lateral view explode(ddl.renamed_tables) renamed_tables as renamed
    where ddl.ddl_type = 'RENAME' or size(ddl.renamed_tables) > 0
),

lifecycle_events as (
    select
        source_database,
        source_table,
        case ddl_type
            when 'CREATE' then 'created'
            when 'ERASE' then 'dropped'
            when 'TRUNCATE' then 'truncated'
        end as lifecycle_event,
        cast(null as string) as other_database,
        cast(null as string) as other_table,
        event_ts,
        {{ cdc_event_position() }} as event_position
    from ddl
    where ddl_type in ('CREATE', 'ERASE', 'TRUNCATE')

    union all

    select
        from_database as source_database,
        from_table as source_table,
        'renamed' as lifecycle_event,
        to_database as other_database,
        to_table as other_table,
        event_ts,
        event_position
    from renames

    union all

    select
        to_database as source_database,
        to_table as source_table,
        'renamed_into' as lifecycle_event,
        from_database as other_database,
        from_table as other_table,
        event_ts,
        event_position
    from renames

    union all

    select
        source_database,
        source_table,
        'changed' as lifecycle_event,
        cast(null as string) as other_database,
        cast(null as string) as other_table,
        last_change_ts as event_ts,
        last_event_position as event_position
    from table_changes
),

latest_events as (
    select
        source_database,
        source_table,
        max_by(lifecycle_event, event_position) as latest_event,
        max_by(other_database, event_position) as latest_other_database,
        max_by(other_table, event_position) as latest_other_table,
        max_by(event_ts, event_position) as status_ts,
        max(event_position) as status_position,
        max_by(event_ts, event_position) filter (
            where lifecycle_event in ('dropped', 'truncated', 'renamed')
        ) as rows_cleared_ts,
        max(event_position) filter (
            where lifecycle_event in ('dropped', 'truncated', 'renamed')
        ) as rows_cleared_position,
        max_by(other_database, event_position) filter (
            where lifecycle_event = 'renamed_into'
        ) as renamed_from_database,
        max_by(other_table, event_position) filter (where lifecycle_event = 'renamed_into') as renamed_from_table
    from lifecycle_events
    group by source_database, source_table
),

clears_before_rename as (
    select
        latest_events.source_database,
        latest_events.source_table,
        max(lifecycle_events.event_position) as carried_rows_since_position
    from latest_events
    inner join lifecycle_events
        on
            latest_events.source_database <=> lifecycle_events.source_database
            and latest_events.source_table <=> lifecycle_events.source_table
            and latest_events.status_position > lifecycle_events.event_position
            and lifecycle_events.lifecycle_event in ('dropped', 'truncated', 'renamed')
    where latest_events.latest_event = 'renamed'
    group by latest_events.source_database, latest_events.source_table
),

ddl_counts as (
    select
        source_database,
        source_table,
        count(*) as ddl_count,
        max_by(ddl_type, {{ cdc_event_position() }}) as last_ddl_type,
        max(event_ts) as last_ddl_ts
    from ddl
    group by source_database, source_table
)

select
    latest_events.source_database,
    latest_events.source_table,
    case latest_events.latest_event
        when 'dropped' then 'dropped'
        when 'renamed' then 'renamed'
        else 'live'
    end as table_status,
    latest_events.latest_event not in ('dropped', 'renamed') as is_current,
    latest_events.status_ts,
    latest_events.status_position,
    case when latest_events.latest_event = 'renamed' then latest_events.latest_other_database end
        as renamed_to_database,
    case when latest_events.latest_event = 'renamed' then latest_events.latest_other_table end
        as renamed_to_table,
    latest_events.renamed_from_database,
    latest_events.renamed_from_table,
    latest_events.rows_cleared_ts,
    latest_events.rows_cleared_position,
    clears_before_rename.carried_rows_since_position,
    coalesce(table_changes.change_count, 0) as change_count,
    coalesce(table_changes.row_image_change_count, 0) > 0 as is_keyed_by_row_image,
    table_changes.first_change_ts,
    table_changes.last_change_ts,
    coalesce(ddl_counts.ddl_count, 0) as ddl_count,
    ddl_counts.last_ddl_type,
    ddl_counts.last_ddl_ts
from latest_events
left join clears_before_rename
    on
        latest_events.source_database <=> clears_before_rename.source_database
        and latest_events.source_table <=> clears_before_rename.source_table
left join table_changes
    on
        latest_events.source_database <=> table_changes.source_database
        and latest_events.source_table <=> table_changes.source_table
left join ddl_counts
    on
        latest_events.source_database <=> ddl_counts.source_database
        and latest_events.source_table <=> ddl_counts.source_table
