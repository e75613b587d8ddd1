{#-
    Reconciliation per landed input (file or folder, or Kafka topic and partition): every landed
    message of a committed landing is accounted for. Each message has exactly one outcome
    (int_cdc__message_outcomes), so
        landed_messages = outcome_change_messages + outcome_ddl_messages
            + outcome_control_messages + quarantined_messages + requeued_messages
            + unaccounted_messages,
    and unaccounted_messages must be 0 (the data test cdc_all_messages_accounted fails the build
    otherwise). messages_with_changes, messages_with_ddl and control_messages count the messages
    with at least one such part, so a multi-part message can count in several of them.
-#}
with

requeued_messages as (
    select distinct message_id
    from {{ source('cdc_landing', 'requeued') }}
    where landing_seq in (select landing_seq from {{ source('cdc_landing', 'landings') }})
),

outcomes as (
    -- a message that `cdc-lake requeue` landed again is counted as requeued: its copy, a new
    -- message, stands for it
    select
        message_outcomes.message_id,
        message_outcomes.landing_seq,
        message_outcomes.landed_input,
        message_outcomes.change_parts,
        message_outcomes.keyless_change_parts,
        message_outcomes.ddl_parts,
        message_outcomes.control_parts,
        message_outcomes.is_partly_quarantined,
        message_outcomes.is_duplicate,
        case
            when requeued_messages.message_id is not null then 'requeued'
            else message_outcomes.outcome
        end as outcome
    from {{ ref('int_cdc__message_outcomes') }} as message_outcomes
    left join requeued_messages on message_outcomes.message_id = requeued_messages.message_id
)

select
    outcomes.landed_input,
    min(outcomes.landing_seq) as first_landing_seq,
    max(outcomes.landing_seq) as last_landing_seq,
    count(*) as landed_messages,
    count_if(outcomes.change_parts + outcomes.keyless_change_parts > 0) as messages_with_changes,
    count_if(outcomes.ddl_parts > 0) as messages_with_ddl,
    count_if(outcomes.control_parts > 0) as control_messages,
    count_if(outcomes.outcome = 'quarantined') as quarantined_messages,
    count_if(outcomes.outcome = 'unaccounted') as unaccounted_messages,
    count_if(outcomes.outcome = 'change') as outcome_change_messages,
    count_if(outcomes.outcome = 'ddl') as outcome_ddl_messages,
    count_if(outcomes.outcome = 'control') as outcome_control_messages,
    count_if(outcomes.outcome = 'requeued') as requeued_messages,
    count_if(outcomes.is_partly_quarantined and outcomes.outcome = 'quarantined')
        as partly_quarantined_messages,
    count_if(outcomes.is_duplicate) as duplicate_messages
from outcomes
group by outcomes.landed_input
