{#-
    One row per row change of every format, keyed and deduplicated: a message delivered twice
    (same content, any offset or file) gives one change. cdc_history orders the changes of one key by
    source position (binlog file and offset, SCN, sequence) where the format has one, then event
    time, then landing position (landing, message, element, row).
    Incremental: new landings are appended as new landing_seq partitions; a change already
    present (same change_id) is not appended again.
-#}
{{
    config(
        materialized='incremental',
        incremental_strategy='insert_overwrite',
        partition_by=['landing_seq'],
    )
}}

{%- set incremental = cdc_is_incremental() %}
{%- set watermark = cdc_watermark() %}
{#- a small increment's change ids are broadcast to every task that reads the stored ones -#}
{%- set broadcast_new_changes = '/*+ broadcast(identified) */'
    if cdc_is_small_increment(ref('int_cdc__changes_keyed'), watermark) else '' %}

with

keyed_changes as (
    select *
    from {{ ref('int_cdc__changes_keyed') }}
    where
        key_problem is null
        and landing_seq > {{ watermark }}
),

identified as (
    select
        *,
        sha2(
            to_json(named_struct(
                'format', source_format,
                'database', source_database,
                'table', source_table,
                'key', primary_key,
                'op', op,
                'before', before,
                'after', after,
                'event_ts', cast(event_ts as string),
                'log_file', source_log_file,
                'log_pos', source_log_pos,
                'row', row_index,
                'event', source_event_id
            )),
            256
        ) as change_id
    from keyed_changes
),

first_deliveries as (
    select *
    from identified
    qualify row_number() over (
        partition by change_id
        order by landing_seq, message_index, element_index, row_index
    ) = 1
),

{%- if incremental %}

earlier_changes as (
    -- the new change ids an earlier landing brought already: the stored change ids are probed
    -- with the new ones, not shuffled to meet them
    select {{ broadcast_new_changes }} stored.change_id
    from {{ this }} as stored
    left semi join identified
        on stored.change_id = identified.change_id
),
{%- endif %}

deduplicated as (
    select first_deliveries.*
    from first_deliveries
    {%- if incremental %}
    left anti join earlier_changes
        on first_deliveries.change_id = earlier_changes.change_id
    {%- endif %}
)

select
    change_id,
    source_format,
    source_database,
    source_table,
    op,
    primary_key,
    before_primary_key,
    resolved_key_columns as key_columns,
    key_source,
    before,
    after,
    column_types,
    column_jdbc_types,
    event_ts,
    source_log_file,
    source_log_pos,
    transaction_id,
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
from deduplicated
