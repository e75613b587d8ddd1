{#-
    The landed messages of committed landings, as landed: what the audit and the quarantine say
    about a message besides its parse (where it came from, its format, its text or bytes). A
    landing that never committed (an interrupted `cdc-lake land`) is left out until the next
    `land` removes it. A view: a reader reads only the columns it names.
-#}
{{ config(materialized=cdc_materialized('view')) }}

with

raw_messages as (
    select * from {{ source('cdc_landing', 'raw_messages') }}
),

committed_landings as (
    select landing_seq from {{ source('cdc_landing', 'landings') }}
)

select
    message_id,
    landing_seq,
    message_index,
    message_format,
    source_uri,
    kafka_topic,
    kafka_partition,
    kafka_offset,
    message_text,
    message_bytes,
    coalesce({{ cdc_kafka_input('kafka_topic', 'kafka_partition') }}, source_uri) as landed_input,
    coalesce(is_kafka_offset_reused, false) as is_kafka_offset_reused
from raw_messages
where landing_seq in (select committed_landings.landing_seq from committed_landings)
