{#-
    One row per row change of every format, keyed and deduplicated: the changes that
    int_cdc__changes stores (and the history, the message outcomes and the column catalogue are
    built from). A view, so the changes are written once.
-#}
{{ config(materialized=cdc_materialized('view')) }}

with

changes as (
    select * from {{ ref('int_cdc__changes') }}
    where key_problem is null
)

select
    change_id,
    source_format,
    source_database,
    source_table,
    op,
    primary_key,
    before_primary_key,
    key_columns,
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
    landed_at
from changes
