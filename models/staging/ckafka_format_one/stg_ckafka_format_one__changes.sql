{#-
    Tencent CKafka connector "official format one": one message per row change, `TYPE` I/U/D (the
    documentation prints insert as lowercase "l": I, i and l are inserts; u and d are accepted too),
    full row images in `NEW_VALUES` (I, U) and `OLD_VALUES` (U, D), as JSON objects or as strings
    holding one. `TIME` (yyyyMMddHHmmss) is the source's local time, in the zone of
    var('cdc_ckafka_time_zone'). The format names no key columns: keys come from the seed or the
    table's latest DDL downstream, else the table is keyed by row image (int_cdc__row_image_chains).
    The connector writes DDL in the canal shape (`isDdl`, `sql`, `type`, `es` in seconds) to the
    same topic: those messages are read here as DDL.
    The message is parsed as map<string, string> because the canal-shaped DDL fields (`type`,
    `table`, `database`) differ from format one's (`TYPE`, `TABLE`, `DATABASE`) only by case.
-#}
{%- set canal_ddl_types = "'CREATE', 'ALTER', 'ERASE', 'QUERY', 'TRUNCATE', 'RENAME', 'CINDEX', 'DINDEX'" -%}

with

messages as (
    {{ cdc_parse_messages(
        source('ckafka_format_one', 'raw_messages'),
        source('cdc_landing', 'landings'),
        'ckafka_format_one',
        'map<string, string>',
        map_fields=['']
    ) }}
),

classified as (
    select
        *,
        case
            when parse_state != 'ok' then 'quarantine'
            when message['TYPE'] in ('I', 'i', 'l', 'U', 'u', 'D', 'd') then 'change'
            when
                message['TYPE'] is null
                and (
                    lower(message['isDdl']) = 'true'
                    or (message['sql'] is not null and upper(message['type']) in ({{ canal_ddl_types }}))
                )
                then 'ddl'
            else 'quarantine'
        end as message_kind,
        case
            when message['TYPE'] in ('I', 'i', 'l') then 'insert'
            when message['TYPE'] in ('U', 'u') then 'update'
            when message['TYPE'] in ('D', 'd') then 'delete'
        end as op,
        from_json(
            {{ cdc_exact_json("message['NEW_VALUES']") }}, 'map<string, string>', {{ cdc_json_options() }}
        ) as new_values,
        from_json(
            {{ cdc_exact_json("message['OLD_VALUES']") }}, 'map<string, string>', {{ cdc_json_options() }}
        ) as old_values
    from messages
),

values_checked as (
    select
        *,
        coalesce(
            {{ cdc_map_key_problem('new_values', "'NEW_VALUES'") }},
            {{ cdc_map_key_problem('old_values', "'OLD_VALUES'") }}
        ) as values_problem
    from classified
),

shaped as (
    select
        *,
        case
            when message_kind = 'ddl' then nullif(message['database'], '')
            else nullif(message['DATABASE'], '')
        end as source_database,
        case
            when message_kind = 'ddl' then nullif(message['table'], '')
            else nullif(message['TABLE'], '')
        end as source_table,
        case
            when message_kind = 'ddl'
                then coalesce(
                    {{ cdc_epoch_to_timestamp("message['es']") }},
                    {{ cdc_epoch_to_timestamp("message['ts']") }}
                )
            when trim(message['TIME']) rlike '^[0-9]{14}$'
                then to_utc_timestamp(
                    try_to_timestamp(trim(message['TIME']), 'yyyyMMddHHmmss'),
                    '{{ var("cdc_ckafka_time_zone") }}'
                )
            else to_utc_timestamp(try_to_timestamp(trim(message['TIME'])), '{{ var("cdc_ckafka_time_zone") }}')
        end as event_ts,
        case
            when message_kind = 'ddl' then
                case
                    when upper(message['type']) in ({{ canal_ddl_types }}) then upper(message['type'])
                    else {{ cdc_classify_ddl("message['sql']") }}
                end
        end as ddl_type,
        case
            when message_kind = 'ddl' and size(from_json(message['pkNames'], 'array<string>')) > 0
                then from_json(message['pkNames'], 'array<string>')
        end as ddl_key_columns,
        case
            when message_kind = 'quarantine' and parse_state != 'ok'
                then {{ cdc_parse_failure_reason('parse_state', 'ckafka_format_one') }}
            when message_kind = 'quarantine' and message['TYPE'] is null and message['type'] is not null
                then concat(
                    'canal-shaped ', message['type'], ' message: only the DDL messages of this shape ',
                    'are read as ckafka_format_one; land canal-shaped DML as canal_json'
                )
            when message_kind = 'quarantine'
                then concat('unknown CKafka format one TYPE: ', coalesce(message['TYPE'], '(missing)'))
            when message_kind = 'change' and nullif(message['TABLE'], '') is null then 'missing table name'
            when message_kind = 'change' and values_problem is not null then values_problem
            when op = 'insert' and new_values is null then 'CKafka insert without NEW_VALUES (a JSON object)'
            when op = 'update' and new_values is null then 'CKafka update without NEW_VALUES (a JSON object)'
            when op = 'delete' and old_values is null then 'CKafka delete without OLD_VALUES (a JSON object)'
        end as quarantine_reason
    from values_checked
),

unified as (
    select
        message_id,
        landing_seq,
        message_index,
        element_index,
        case when message_kind = 'change' and quarantine_reason is null then 0 end as row_index,
        'ckafka_format_one' as source_format,
        case when quarantine_reason is not null then 'quarantine' else message_kind end as event_kind,
        coalesce(message['TYPE'], message['type']) as event_type,
        source_database,
        source_table,
        case when quarantine_reason is null then op end as op,
        case
            when quarantine_reason is null and op in ('update', 'delete') then old_values
        end as before,
        case
            when quarantine_reason is null and op in ('insert', 'update') then new_values
        end as after,
        ddl_type,
        case when message_kind = 'ddl' then message['sql'] end as ddl_sql,
        ddl_key_columns,
        event_ts,
        case when message_kind = 'change' then message['BINLOG_NAME'] end as source_log_file,
        case when message_kind = 'change' then try_cast(message['BINLOG_POS'] as bigint) end as source_log_pos,
        case
            when message_kind = 'change'
                then concat_ws('/', message['BINLOG_NAME'], message['BINLOG_POS'], message['GLOBAL_ID'])
            else concat_ws('/', message['id'], message['es'], message['ts'])
        end as source_event_id,
        nullif(message['GLOBAL_ID'], '') as transaction_id,
        quarantine_reason,
        raw_message,
        source_uri,
        kafka_topic,
        kafka_partition,
        kafka_offset,
        landed_at
    from shaped
)

select
    {{ cdc_fill_staging_columns([
        'message_id', 'landing_seq', 'message_index', 'element_index', 'row_index', 'source_format',
        'event_kind', 'event_type', 'source_database', 'source_table', 'op', 'before', 'after',
        'ddl_type', 'ddl_sql', 'ddl_key_columns', 'event_ts', 'source_log_file', 'source_log_pos',
        'source_event_id', 'transaction_id', 'quarantine_reason', 'raw_message', 'source_uri',
        'kafka_topic', 'kafka_partition', 'kafka_offset', 'landed_at'
    ]) }}
from unified
