{#-
    KafkaRiverCanal JSON: one message per row change (`event` i/u/d), the row as `columns`
    [{n, t, v, null, updated, origin_val}]. The after image is `v` (null when `null` is true); an
    update's before image is `origin_val` for columns with `updated` true (null when absent: the
    before value was NULL) and `v` for the others; a delete's before image is `v`. `binlog` is
    "offset@file"; event_ts is `time` (ms), else `canalTime`. The format has no DDL or control
    events (a column added on the source simply appears in the next row image).
-#}
{%- set message_schema -%}
struct<
    binlog: string,
    time: string,
    canalTime: string,
    db: string,
    `table`: string,
    event: string,
    columns: array<struct<n: string, t: string, v: string, `null`: string, updated: string, origin_val: string>>,
    keys: array<string>
>
{%- endset -%}

with

messages as (
    {{ cdc_parse_messages(
        source('kafka_river_canal', 'raw_messages'),
        source('cdc_landing', 'landings'),
        'kafka_river_canal',
        message_schema | replace('\n', ' ')
    ) }}
),

classified as (
    select
        *,
        case
            when parse_state = 'ok' then
                case lower(trim(message.event))
                    when 'i' then 'insert'
                    when 'u' then 'update'
                    when 'd' then 'delete'
                end
        end as op,
        nullif(message.db, '') as source_database,
        nullif(message.`table`, '') as source_table,
        coalesce(
            {{ cdc_epoch_to_timestamp('message.time') }},
            {{ cdc_epoch_to_timestamp('message.canalTime') }}
        ) as event_ts,
        nullif(regexp_extract(message.binlog, '^\\s*[0-9]+@(.+?)\\s*$', 1), '') as source_log_file,
        try_cast(regexp_extract(message.binlog, '^\\s*([0-9]+)@.+$', 1) as bigint) as source_log_pos,
        case
            when size(array_distinct(message.keys)) > 0 then array_distinct(message.keys)
        end as key_columns,
        transform(message.columns, column_entry -> column_entry.n) as column_names
    from messages
),

checked as (
    select
        *,
        case
            when parse_state != 'ok' then {{ cdc_parse_failure_reason('parse_state', 'kafka_river_canal') }}
            when op is null then concat('unknown KafkaRiverCanal event: ', coalesce(message.event, '(missing)'))
            when source_table is null then 'missing table name'
            when coalesce(size(message.columns), 0) = 0 then 'KafkaRiverCanal message without columns'
            when not forall(column_names, column_name -> coalesce(column_name, '') != '')
                then 'KafkaRiverCanal column without a name (n)'
            when size(array_distinct(column_names)) != size(column_names)
                then 'KafkaRiverCanal message names a column twice'
        end as quarantine_reason
    from classified
),

images as (
    select
        *,
        case
            when quarantine_reason is null
                then map_from_entries(transform(
                    message.columns,
                    column_entry -> struct(
                        column_entry.n,
                        case when lower(column_entry.`null`) = 'true' then null else column_entry.v end
                    )
                ))
        end as current_image,
        case
            when quarantine_reason is null and op = 'update'
                then map_from_entries(transform(
                    message.columns,
                    column_entry -> struct(
                        column_entry.n,
                        case
                            when lower(column_entry.updated) = 'true' then column_entry.origin_val
                            when lower(column_entry.`null`) = 'true' then null
                            else column_entry.v
                        end
                    )
                ))
        end as before_update_image,
        case
            when quarantine_reason is null
                then map_from_entries(transform(
                    filter(message.columns, column_entry -> column_entry.t is not null),
                    column_entry -> struct(column_entry.n, column_entry.t)
                ))
        end as column_types
    from checked
),

unified as (
    select
        message_id,
        landing_seq,
        message_index,
        element_index,
        case when quarantine_reason is null then 0 end as row_index,
        'kafka_river_canal' as source_format,
        case when quarantine_reason is null then 'change' else 'quarantine' end as event_kind,
        message.event as event_type,
        source_database,
        source_table,
        case when quarantine_reason is null then op end as op,
        key_columns,
        case
            when op = 'update' then before_update_image
            when op = 'delete' then current_image
        end as before,
        case when op in ('insert', 'update') then current_image end as after,
        column_types,
        event_ts,
        source_log_file,
        source_log_pos,
        {{ cdc_epoch_to_timestamp('message.canalTime') }} as emitted_ts,
        message.binlog as source_event_id,
        quarantine_reason,
        raw_message,
        source_uri,
        kafka_topic,
        kafka_partition,
        kafka_offset,
        landed_at
    from images
)

select
    {{ cdc_fill_staging_columns([
        'message_id', 'landing_seq', 'message_index', 'element_index', 'row_index', 'source_format',
        'event_kind', 'event_type', 'source_database', 'source_table', 'op', 'key_columns', 'before',
        'after', 'column_types', 'event_ts', 'source_log_file', 'source_log_pos', 'emitted_ts',
        'source_event_id',
        'quarantine_reason', 'raw_message', 'source_uri', 'kafka_topic', 'kafka_partition',
        'kafka_offset', 'landed_at'
    ]) }}
from unified
