{#-
    Every message or row that could not be used, with the reason and the raw message, so nothing
    landed is lost: unparseable or unclaimed messages, unknown types, rows without a table or key,
    changes of a table keyed by row image that match no live row.
    Messages that `cdc-lake requeue` landed again are left out (their new copy stands for them).
    A view (over the staging models' quarantine rows), so a build does not rescan all history.
-#}
{{ config(materialized=cdc_materialized('view')) }}

{%- set change_columns -%}
    source_format,
        source_database,
        source_table,
        message_id,
        landing_seq,
        message_index,
        element_index,
        row_index,
        landed_at
{%- endset %}

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

unusable_changes as (
    -- row changes without a usable key: none resolves, or (a table keyed by row image) the before
    -- image matches no live row
    select
        {{ change_columns }},
        key_problem as reason
    from {{ ref('int_cdc__changes') }}
    where key_problem is not null

    union all

    select
        {{ change_columns }},
        chain_problem as reason
    from {{ ref('int_cdc__row_image_chains') }}
    where chain_problem is not null
),

unusable_change_rows as (
    {#- staging keeps raw_message on quarantine rows only: a change takes it from landing -#}
    select
        unusable.source_format,
        coalesce(landed.message_text, base64(landed.message_bytes)) as raw_message,
        unusable.reason,
        unusable.source_database,
        unusable.source_table,
        unusable.message_id,
        unusable.landing_seq,
        unusable.message_index,
        unusable.element_index,
        unusable.row_index,
        landed.source_uri,
        landed.kafka_topic,
        landed.kafka_partition,
        landed.kafka_offset,
        unusable.landed_at
    from unusable_changes as unusable
    inner join {{ ref('stg_cdc_landing__messages') }} as landed
        on
            unusable.message_id = landed.message_id
            and unusable.landing_seq = landed.landing_seq
),

requeued_messages as (
    select distinct message_id
    from {{ ref('stg_cdc_landing__requeued') }}
),

quarantined as (
    select * from quarantined_events
    union all
    select * from unusable_change_rows
)

select quarantined.*
from quarantined
left anti join requeued_messages
    on quarantined.message_id = requeued_messages.message_id
