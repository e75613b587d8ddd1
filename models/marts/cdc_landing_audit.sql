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

    The counts per landing (int_cdc__landing_input_counts) are added up; a message that
    `cdc-lake requeue` landed again is then moved from its outcome to requeued: its copy, a new
    message, stands for it. Only the requeued messages' outcomes are looked up.

    What never landed is shown too: kafka_lost_offsets counts the offsets of a Kafka partition
    that the broker deleted (retention) before they were landed. A partition that lost offsets and
    landed nothing has a row of its own, with no landed messages.
-#}
with

landing_input_counts as (
    select * from {{ ref('int_cdc__landing_input_counts') }}
),

kafka_lost_offsets as (
    select * from {{ ref('stg_cdc_landing__kafka_lost_offsets') }}
),

requeued_messages as (
    select distinct message_id
    from {{ ref('stg_cdc_landing__requeued') }}
),

requeued_outcomes as (
    select /*+ broadcast(requeued_messages) */  -- noqa: RF02
        message_outcomes.landed_input,
        message_outcomes.outcome,
        message_outcomes.is_partly_quarantined
    from {{ ref('int_cdc__message_outcomes') }} as message_outcomes
    left semi join requeued_messages on message_outcomes.message_id = requeued_messages.message_id
),

requeued_counts as (
    select
        landed_input,
        count(*) as requeued_messages,
        count_if(outcome = 'quarantined') as quarantined_messages,
        count_if(outcome = 'unaccounted') as unaccounted_messages,
        count_if(outcome = 'change') as outcome_change_messages,
        count_if(outcome = 'ddl') as outcome_ddl_messages,
        count_if(outcome = 'control') as outcome_control_messages,
        count_if(is_partly_quarantined and outcome = 'quarantined') as partly_quarantined_messages
    from requeued_outcomes
    group by landed_input
),

input_counts as (
    select
        landed_input,
        min(landing_seq) as first_landing_seq,
        max(landing_seq) as last_landing_seq,
        sum(landed_messages) as landed_messages,
        sum(messages_with_changes) as messages_with_changes,
        sum(messages_with_ddl) as messages_with_ddl,
        sum(control_messages) as control_messages,
        sum(quarantined_messages) as quarantined_messages,
        sum(unaccounted_messages) as unaccounted_messages,
        sum(outcome_change_messages) as outcome_change_messages,
        sum(outcome_ddl_messages) as outcome_ddl_messages,
        sum(outcome_control_messages) as outcome_control_messages,
        sum(partly_quarantined_messages) as partly_quarantined_messages,
        sum(duplicate_messages) as duplicate_messages,
        sum(reused_offset_messages) as reused_offset_messages
    from landing_input_counts
    group by landed_input
),

lost_offset_counts as (
    select
        landed_input,
        min(landing_seq) as first_landing_seq,
        max(landing_seq) as last_landing_seq,
        sum(lost_offsets) as kafka_lost_offsets
    from kafka_lost_offsets
    group by landed_input
)

select
    coalesce(input_counts.landed_input, lost_offset_counts.landed_input) as landed_input,
    least(input_counts.first_landing_seq, lost_offset_counts.first_landing_seq) as first_landing_seq,
    greatest(input_counts.last_landing_seq, lost_offset_counts.last_landing_seq) as last_landing_seq,
    coalesce(input_counts.landed_messages, 0) as landed_messages,
    coalesce(input_counts.messages_with_changes, 0) as messages_with_changes,
    coalesce(input_counts.messages_with_ddl, 0) as messages_with_ddl,
    coalesce(input_counts.control_messages, 0) as control_messages,
    coalesce(input_counts.quarantined_messages, 0) - coalesce(requeued_counts.quarantined_messages, 0)
        as quarantined_messages,
    coalesce(input_counts.unaccounted_messages, 0) - coalesce(requeued_counts.unaccounted_messages, 0)
        as unaccounted_messages,
    coalesce(input_counts.outcome_change_messages, 0) - coalesce(requeued_counts.outcome_change_messages, 0)
        as outcome_change_messages,
    coalesce(input_counts.outcome_ddl_messages, 0) - coalesce(requeued_counts.outcome_ddl_messages, 0)
        as outcome_ddl_messages,
    coalesce(input_counts.outcome_control_messages, 0) - coalesce(requeued_counts.outcome_control_messages, 0)
        as outcome_control_messages,
    coalesce(requeued_counts.requeued_messages, 0) as requeued_messages,
    coalesce(input_counts.partly_quarantined_messages, 0)
    - coalesce(requeued_counts.partly_quarantined_messages, 0) as partly_quarantined_messages,
    coalesce(input_counts.duplicate_messages, 0) as duplicate_messages,
    coalesce(input_counts.reused_offset_messages, 0) as reused_offset_messages,
    coalesce(lost_offset_counts.kafka_lost_offsets, 0) as kafka_lost_offsets
from input_counts
left join requeued_counts on input_counts.landed_input = requeued_counts.landed_input
full outer join lost_offset_counts on input_counts.landed_input = lost_offset_counts.landed_input
