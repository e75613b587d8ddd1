{#-
    The row changes of each landing, counted per source table (from int_cdc__changes, so a change
    delivered twice counts once), with when the first and last of them happened. Incremental, a
    partition per landing: cdc_tables adds up this small table instead of reading every change.
-#}
{{
    config(
        materialized=cdc_materialized('incremental'),
        incremental_strategy='insert_overwrite',
        partition_by=['landing_seq'],
    )
}}

with

new_changes as (
    select
        source_database,
        source_table,
        event_ts,
        key_source,
        landing_seq,
        {{ cdc_event_position() }} as event_position
    from {{ ref('int_cdc__changes') }}
    where
        key_problem is null
        and landing_seq > {{ cdc_watermark() }}
)

select
    source_database,
    source_table,
    count(*) as change_count,
    count_if(key_source = 'row_image') as row_image_change_count,
    min(event_ts) as first_change_ts,
    max(event_ts) as last_change_ts,
    max(event_position) as last_event_position,
    landing_seq
from new_changes
group by landing_seq, source_database, source_table
