{#-
    One row per row change of every format, keyed and deduplicated: a change delivered again (in
    another file, at other Kafka offsets, or again in the same input) gives one change.
    change_id is a hash of what the change says (format, table, key, op, images, event time and
    id, source position, row in its message) and, for a change without a source position, of its
    occurrence: within one input (a file, or a Kafka partition, of one landing) the changes of a
    key are put in the key's order; a change identical to the change just before it is a
    re-delivery of it (same occurrence), and an identical change with other changes of the key
    in between is a new occurrence. So a Canal batch in which a row goes A->B, B->A, A->B keeps
    both A->B changes (occurrences 1 and 2), and the same batch delivered again gives the same
    ids. A change with a source position is identified by it: any copy is a re-delivery.
    cdc_history orders the changes of one key by cdc_version_order().
    Changes without a usable key (key_problem) are stored too, each as landed (no change_id, not
    deduplicated): cdc_quarantine lists them, and every other reader takes `key_problem is null`.
    Stored, a change keeps the key its build resolved: a key a later DDL statement or seed row
    declares applies to the changes landed after it, never to one already quarantined.
    Incremental: new landings are appended as new landing_seq partitions; a change already
    present (same change_id) is not appended again. Occurrences are counted within one landing,
    so a full and an incremental build give the same ids. A landing whose changes are all
    re-deliveries writes no partition; the watermark counts it all the same
    (`cdc_lake.built_through`), so no build keys a landing's changes a second time.
-#}
{{
    config(
        materialized=cdc_materialized('incremental'),
        incremental_strategy='insert_overwrite',
        partition_by=['landing_seq'],
    )
}}

{%- set incremental = cdc_is_incremental() %}
{%- set watermark = cdc_watermark() %}
{#- the order of a key's changes within one input (cdc_version_order without the landing) -#}
{%- set key_sequence_order -%}
    event_ts asc nulls last, emitted_ts asc nulls last, source_batch_id asc nulls last,
    message_index, element_index, row_index
{%- endset -%}
{#- a build with at most var cdc_broadcast_max_new_rows new events (counted where they are stored:
    the keyed view would key them to count them) broadcasts its change ids to the tasks that read
    the stored ones and to those that read its rows; with at most var cdc_hash_join_max_rows, the
    ids meet their rows in an in-memory hash table; with more, the rows are sorted to meet them,
    which spills to disk -#}
{%- set new_events = cdc_row_counts(ref('int_cdc__events'), 'landing_seq > ' ~ watermark, {'rows': 'true'}) %}
{%- set new_event_count = new_events['rows'] if new_events is not none else none %}
{%- set is_small_build = new_event_count is not none and new_event_count <= var('cdc_broadcast_max_new_rows') | int %}
{%- set broadcast_new_changes = '/*+ broadcast(change_ids) */' if is_small_build else '' %}
{%- if is_small_build %}
{%- set join_new_ids = '/*+ broadcast(new_ids) */' %}
{%- elif new_event_count is not none and new_event_count <= var('cdc_hash_join_max_rows') | int %}
{%- set join_new_ids = '/*+ shuffle_hash(new_ids) */' %}
{%- else %}
{%- set join_new_ids = '' %}
{%- endif %}

with

keyed_changes as (
    -- the new landings' row changes, keyed by the view int_cdc__changes_keyed (the ids and the
    -- keys are computed from it, on narrow rows)
    select *
    from {{ ref('int_cdc__changes_keyed') }}
    where landing_seq > {{ watermark }}
),

change_rows as (
    -- the same changes as parsed, the wide columns stored: they meet their ids and keys below,
    -- so they are not keyed a second time
    select *
    from {{ ref('int_cdc__events') }}
    where event_kind = 'change' and landing_seq > {{ watermark }}
),

change_positions as (
    -- what the ids need, and no more: the windows below sort these narrow rows, never the wide
    -- ones. One shuffle, by a hash of the key, first in every window's partition: a key's changes
    -- meet here for their order and their occurrences, and the copies of a change (same
    -- change_id, hence same key) meet with them to be deduplicated; the hash is also a sort
    -- prefix that tells keys apart (a primary_key string begins like every other one)
    select /*+ repartition(key_hash) */
        xxhash64(source_database, source_table, primary_key) as key_hash,
        source_database,
        source_table,
        primary_key,
        before_primary_key,
        resolved_key_columns,
        key_source,
        message_id,
        landing_seq,
        message_index,
        element_index,
        row_index,
        event_ts,
        emitted_ts,
        source_batch_id,
        source_log_pos,
        key_problem,
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
        ) as content_id,
        coalesce(kafka_topic || '/' || kafka_partition, source_uri) as delivered_in
    from keyed_changes
),

key_sequences as (
    -- each key's changes in one input of one landing, in the key's order, with the content of
    -- the change before
    select
        *,
        lag(content_id) over (
            partition by key_hash, source_database, source_table, primary_key, delivered_in, landing_seq
            order by {{ key_sequence_order }}
        ) as previous_content_id
    from change_positions
),

repeats as (
    -- the occurrence of a content among its key's changes in one input: a change identical to
    -- the one before it is a re-delivery of it (same occurrence), any other is a new occurrence;
    -- a change with a source position is identified by it (always occurrence 1)
    select
        *,
        case
            when source_log_pos is not null then 1
            else count_if(previous_content_id is null or previous_content_id != content_id) over (
                partition by
                    key_hash, content_id, source_database, source_table, primary_key, delivered_in, landing_seq
                order by {{ key_sequence_order }}
                rows between unbounded preceding and current row
            )
        end as repeat_number
    from key_sequences
),

change_ids as (
    select
        *,
        case
            when key_problem is not null then null
            when repeat_number = 1 then content_id
            else sha2(content_id || '/' || repeat_number, 256)
        end as change_id
    from repeats
),

first_deliveries as (
    -- a change_id hashes the key: partitioned by key first, within the key's shuffle; a change
    -- without a usable key (no change_id) is kept as landed
    select *
    from change_ids
    qualify
        key_problem is not null
        or row_number() over (
            partition by key_hash, change_id, source_database, source_table, primary_key
            order by landing_seq, message_index, element_index, row_index
        ) = 1
),

{%- if incremental %}

earlier_changes as (
    -- the new change ids an earlier landing brought already: the stored change ids are probed
    -- with the new ones, not shuffled to meet them
    select {{ broadcast_new_changes }} stored.change_id
    from {{ this }} as stored
    left semi join change_ids
        on stored.change_id = change_ids.change_id
),
{%- endif %}

new_ids as (
    select first_deliveries.*
    from first_deliveries
    {%- if incremental %}
    left anti join earlier_changes
        on first_deliveries.change_id = earlier_changes.change_id
    {%- endif %}
),

deduplicated as (
    -- the stored columns of the kept changes, matched to their ids and keys by their message and
    -- their place in it (a landed message has an id of its own): the ids broadcast, or both sides
    -- shuffled by it
    select {{ join_new_ids }}
        change_rows.*,
        new_ids.change_id,
        new_ids.primary_key,
        new_ids.before_primary_key,
        new_ids.resolved_key_columns,
        new_ids.key_source,
        new_ids.key_problem
    from change_rows
    inner join new_ids
        on
            change_rows.message_id = new_ids.message_id
            and coalesce(change_rows.element_index, -1) = coalesce(new_ids.element_index, -1)
            and coalesce(change_rows.row_index, -1) = coalesce(new_ids.row_index, -1)
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
    emitted_ts,
    source_batch_id,
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
    landed_at,
    key_problem
from deduplicated
