{#-
    Every message or row that could not be used, with the reason and the raw message, so nothing
    landed is lost: unparseable or unclaimed messages, unknown types, rows without a table or key.
    Messages that `cdc-lake requeue` landed again are left out (their new copy stands for them).
-#}
with

quarantined_events as (
    select
        source_format,
        raw_message,
        quarantine_reason as reason,
        source_database,
        source_table,
        message_id,
        landing_seq,
        message_index,
        element_index,
        row_index,
        source_uri,
        kafka_topic,
        kafka_partition,
        kafka_offset,
        landed_at
    from {{ ref('int_cdc__events') }}
    where event_kind = 'quarantine'
),

keyless_rows as (
    select
        source_format,
        raw_message,
        key_problem as reason,
        source_database,
        source_table,
        message_id,
        landing_seq,
        message_index,
        element_index,
        row_index,
        source_uri,
        kafka_topic,
        kafka_partition,
        kafka_offset,
        landed_at
    from {{ ref('int_cdc__changes_keyed') }}
    where key_problem is not null
),

requeued_messages as (
    select distinct message_id
    from {{ source('cdc_landing', 'requeued') }}
    where landing_seq in (select landing_seq from {{ source('cdc_landing', 'landings') }})
),

quarantined as (
    select * from quarantined_events
    union all
    select * from keyless_rows
)

select quarantined.*
from quarantined
left anti join requeued_messages
    on quarantined.message_id = requeued_messages.message_id
