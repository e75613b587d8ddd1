{#-
    Reconciliation per landed input (file, or Kafka topic and partition): every landed message is
    a change, a DDL statement, a control event (heartbeat, transaction marker, tombstone) or
    quarantined. unaccounted_messages must be 0 (a data test enforces it).
-#}
with

landed as (
    select
        message_id,
        coalesce(kafka_topic || '/' || kafka_partition, source_uri) as landed_input
    from {{ source('cdc_landing', 'raw_messages') }}
    where landing_seq in (select landing_seq from {{ source('cdc_landing', 'landings') }})
),

outcomes as (
    select
        message_id,
        max(event_kind = 'change') as has_change,
        max(event_kind = 'ddl') as has_ddl,
        max(event_kind = 'control') as has_control,
        max(event_kind = 'quarantine') as has_quarantine
    from {{ ref('int_cdc__events') }}
    group by message_id
),

keyless as (
    select distinct message_id
    from {{ ref('int_cdc__changes_keyed') }}
    where key_problem is not null
)

select
    landed.landed_input,
    count(*) as landed_messages,
    count_if(outcomes.has_change) as messages_with_changes,
    count_if(outcomes.has_ddl) as messages_with_ddl,
    count_if(outcomes.has_control) as control_messages,
    count_if(outcomes.has_quarantine or keyless.message_id is not null) as quarantined_messages,
    count_if(outcomes.message_id is null) as unaccounted_messages
from landed
left join outcomes on landed.message_id = outcomes.message_id
left join keyless on landed.message_id = keyless.message_id
group by landed.landed_input
