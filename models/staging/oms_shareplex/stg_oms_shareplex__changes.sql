{#-
    OceanBase OMS "SharePlex" JSON: `meta.op` ins / upd / del, `meta.table` "database.table",
    `data` (ins: the new row; del: the deleted row; upd: only the changed columns' new values) and,
    for upd, `key` (the row before the change). An update's after image is `key` overlaid with
    `data`. The format names no key columns: meta.rowid ("{database}.{table}-{values joined by
    \u0001}", the before image's key for upd and del) carries the key values without names, in
    row_key_values (int_cdc__changes_keyed keys the row by them). A meta.rowid that does not start
    with meta.table and "-" is quarantined rather than read as a wrong key.
-#}
{%- set message_schema -%}
struct<
    data: map<string, string>,
    key: map<string, string>,
    meta: struct<
        time: string, op: string, posttime: string, idx: string, size: string, seq: string,
        `table`: string, rowid: string, trans: string, scn: string, userid: string
    >
>
{%- endset -%}

with

messages as (
    {{ cdc_parse_messages(
        source('oms_shareplex', 'raw_messages'),
        source('cdc_landing', 'landings'),
        'oms_shareplex',
        message_schema | replace('\n', ' '),
        map_fields=['data', 'key']
    ) }}
),

classified as (
    select
        *,
        message.meta.op as event_type,
        case
            when parse_state != 'ok' then 'quarantine'
            when lower(message.meta.op) in ('ins', 'upd', 'del') then 'change'
            else 'quarantine'
        end as message_kind,
        case
            when message.meta.`table` like '%.%'
                then nullif(regexp_extract(message.meta.`table`, '^(.*)\\.[^.]*$', 1), '')
        end as source_database,
        nullif(regexp_extract(message.meta.`table`, '([^.]*)$', 1), '') as source_table,
        case when size(message.data) > 0 then message.data end as data_image,
        case when size(message.key) > 0 then message.key end as key_image,
        startswith(message.meta.rowid, message.meta.`table` || '-') as is_rowid_of_table
    from messages
),

shaped as (
    select
        *,
        case lower(event_type)
            when 'ins' then 'insert'
            when 'upd' then 'update'
            when 'del' then 'delete'
        end as op,
        case lower(event_type)
            when 'upd' then key_image
            when 'del' then data_image
        end as before,
        case lower(event_type)
            when 'ins' then data_image
            when 'upd'
                then
                    case
                        when key_image is null then data_image
                        else map_concat(
                            map_filter(
                                key_image,
                                (column_name, column_value) -> not array_contains(
                                    map_keys(coalesce(data_image, map())), column_name
                                )
                            ),
                            coalesce(data_image, map())
                        )
                    end
        end as after
    from classified
),

unified as (
    select
        message_id,
        landing_seq,
        message_index,
        element_index,
        case when message_kind = 'change' then 0 end as row_index,
        'oms_shareplex' as source_format,
        event_type,
        source_database,
        source_table,
        op,
        case
            when is_rowid_of_table
                then split(substr(message.meta.rowid, length(message.meta.`table`) + 2), char(1))
        end as row_key_values,
        before,
        after,
        try_to_timestamp(message.meta.time) as event_ts,
        coalesce(try_cast(message.meta.scn as bigint), try_cast(message.meta.seq as bigint)) as source_log_pos,
        concat_ws('/', message.meta.scn, message.meta.seq, message.meta.trans, message.meta.rowid)
            as source_event_id,
        message.meta.trans as transaction_id,
        case
            when message_kind = 'quarantine' and parse_state = 'ok'
                then concat('unknown SharePlex meta.op: ', coalesce(message.meta.op, '(missing)'))
            when message_kind = 'quarantine'
                then {{ cdc_parse_failure_reason('parse_state', 'oms_shareplex') }}
            when source_table is null then 'missing table name'
            when lower(event_type) = 'upd' and key_image is null
                then 'SharePlex upd message without key (the before image)'
            when lower(event_type) = 'upd' and data_image is null
                then 'SharePlex upd message without data (the changed columns)'
            when data_image is null then concat('SharePlex ', event_type, ' message without data')
            when not is_rowid_of_table
                then
                    'SharePlex meta.rowid does not start with meta.table followed by "-", '
                    || 'so its key values cannot be read'
        end as quarantine_reason,
        message_kind,
        raw_message,
        source_uri,
        kafka_topic,
        kafka_partition,
        kafka_offset,
        landed_at
    from shaped
),

final as (
    select
        *,
        case when quarantine_reason is not null then 'quarantine' else message_kind end as event_kind
    from unified
)

select
    {{ cdc_fill_staging_columns([
        'message_id', 'landing_seq', 'message_index', 'element_index', 'row_index', 'source_format',
        'event_kind', 'event_type', 'source_database', 'source_table', 'op', 'row_key_values', 'before', 'after',
        'event_ts', 'source_log_pos', 'source_event_id', 'transaction_id', 'quarantine_reason',
        'raw_message', 'source_uri', 'kafka_topic', 'kafka_partition', 'kafka_offset', 'landed_at'
    ]) }}
from final
