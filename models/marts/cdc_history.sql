{#-
    SCD type 2: one row per version of a source row. Every change opens a version of its key; a
    delete leaves a version with is_deleted; an UPDATE that changes the primary key closes the old
    key (a deleted version) and opens the new one. valid_from is the change's event time (never
    before the previous version's), valid_to the next version's valid_from.
-#}
with

changes as (
    select * from {{ ref('cdc_changes') }}
),

version_events as (
    select
        change_id,
        source_format,
        source_database,
        source_table,
        primary_key,
        op,
        case when op = 'delete' then before else after end as row,
        op = 'delete' as is_deleted,
        1 as split_order,
        event_ts,
        source_log_file,
        source_log_pos,
        landing_seq,
        message_index,
        element_index,
        row_index,
        message_id,
        landed_at
    from changes

    union all

    select
        change_id,
        source_format,
        source_database,
        source_table,
        before_primary_key as primary_key,
        'delete' as op,
        before as row,
        true as is_deleted,
        0 as split_order,
        event_ts,
        source_log_file,
        source_log_pos,
        landing_seq,
        message_index,
        element_index,
        row_index,
        message_id,
        landed_at
    from changes
    where before_primary_key is not null and before_primary_key != primary_key
),

ordered as (
    select
        *,
        row_number() over (
            partition by source_database, source_table, primary_key
            order by
                source_log_file, source_log_pos, event_ts, landing_seq, message_index,
                element_index, row_index, split_order
        ) as version_number
    from version_events
),

monotonic as (
    select
        *,
        max(coalesce(event_ts, landed_at)) over (
            partition by source_database, source_table, primary_key
            order by version_number
            rows between unbounded preceding and current row
        ) as valid_from
    from ordered
),

versions as (
    select
        *,
        lead(valid_from) over (
            partition by source_database, source_table, primary_key
            order by version_number
        ) as valid_to
    from monotonic
)

select
    source_database,
    source_table,
    primary_key,
    version_number,
    row,
    op,
    valid_from,
    valid_to,
    valid_to is null as is_current,
    is_deleted,
    source_format,
    change_id,
    event_ts,
    message_id,
    landed_at
from versions
