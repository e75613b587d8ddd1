{#-
    The Kafka offsets that committed landings found deleted by the broker (retention) before they
    were landed, one row per landing and topic partition, named as cdc_landing_audit names a Kafka
    input (topic/partition).
-#}
{{ config(materialized=cdc_materialized('view')) }}

with

landings as (
    select
        landing_seq,
        kafka_lost_offsets
    from {{ source('cdc_landing', 'landings') }}
    where kafka_lost_offsets is not null
),

lost_ranges as (
    select
        landing_seq,
        explode(kafka_lost_offsets) as lost_range
    from landings
)

select
    landing_seq,
    lost_range.first_offset,
    lost_range.end_offset,
    {{ cdc_kafka_input('lost_range.kafka_topic', 'lost_range.kafka_partition') }} as landed_input,
    lost_range.end_offset - lost_range.first_offset as lost_offsets
from lost_ranges
