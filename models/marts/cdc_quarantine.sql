{#-
    Every message or row that could not be used, with the reason and the raw message, so nothing
    landed is lost: unparseable or unclaimed messages, unknown types, rows without a table or key,
    changes of a table keyed by row image that match no live row.
    Messages that `cdc-lake requeue` landed again are left out (their new copy stands for them).
    A view (over the staging models' quarantine rows), so a build does not rescan all history.
-#}
{{ config(materialized='view') }}
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
    {#- staging keeps raw_message on quarantine rows only: a keyless change takes it from landing -#}
    select
        keyless.source_format,
        coalesce(landed.message_text, base64(landed.message_bytes)) as raw_message,
        keyless.key_problem as reason,
        keyless.source_database,
        keyless.source_table,
        keyless.message_id,
        keyless.landing_seq,
        keyless.message_index,
        keyless.element_index,
        keyless.row_index,
        keyless.source_uri,
        keyless.kafka_topic,
        keyless.kafka_partition,
        keyless.kafka_offset,
        keyless.landed_at
    from {{ ref('int_cdc__changes_keyed') }} as keyless
    inner join {{ source('cdc_landing', 'raw_messages') }} as landed
        on
            keyless.message_id = landed.message_id
            and keyless.landing_seq = landed.landing_seq
    where keyless.key_problem is not null
),

unchained_rows as (
    {#- a change of a table keyed by row image whose before image matches no live row -#}
    select
        unchained.source_format,
        coalesce(landed.message_text, base64(landed.message_bytes)) as raw_message,
        unchained.chain_problem as reason,
        unchained.source_database,
        unchained.source_table,
        unchained.message_id,
        unchained.landing_seq,
        unchained.message_index,
        unchained.element_index,
        unchained.row_index,
        landed.source_uri,
        landed.kafka_topic,
        landed.kafka_partition,
        landed.kafka_offset,
        unchained.landed_at
    from {{ ref('int_cdc__row_image_chains') }} as unchained
    inner join {{ source('cdc_landing', 'raw_messages') }} as landed
        on
            unchained.message_id = landed.message_id
            and unchained.landing_seq = landed.landing_seq
    where unchained.chain_problem is not null
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
    union all
    select * from unchained_rows
)

select quarantined.*
from quarantined
left anti join requeued_messages
    on quarantined.message_id = requeued_messages.message_id
