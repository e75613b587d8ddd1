{#-
    The message outcomes of each landing counted per landed input (incremental, one partition per
    landing_seq): cdc_landing_audit adds up this small table instead of reading every message's
    outcome. Counts are of the outcomes as landed; the audit moves the messages that
    `cdc-lake requeue` landed again to requeued.
-#}
{{
    config(
        materialized=cdc_materialized('incremental'),
        incremental_strategy='insert_overwrite',
        partition_by=['landing_seq'],
    )
}}

with

new_outcomes as (
    select * from {{ ref('int_cdc__message_outcomes') }}
    where landing_seq > {{ cdc_watermark() }}
)

select
    landed_input,
    count(*) as landed_messages,
    count_if(change_parts + keyless_change_parts > 0) as messages_with_changes,
    count_if(ddl_parts > 0) as messages_with_ddl,
    count_if(control_parts > 0) as control_messages,
    count_if(outcome = 'quarantined') as quarantined_messages,
    count_if(outcome = 'unaccounted') as unaccounted_messages,
    count_if(outcome = 'change') as outcome_change_messages,
    count_if(outcome = 'ddl') as outcome_ddl_messages,
    count_if(outcome = 'control') as outcome_control_messages,
    count_if(is_partly_quarantined and outcome = 'quarantined') as partly_quarantined_messages,
    count_if(is_duplicate) as duplicate_messages,
    count_if(is_kafka_offset_reused) as reused_offset_messages,
    landing_seq
from new_outcomes
group by landing_seq, landed_input
