{#-
    OceanBase OMS "Dataworks" (DataWorks 2.0) JSON: `schema` (source, column, pk) and `payload`
    (before.data, after.data, op, timestamp.eventTime, ddl.text, scn). payload.op is case-sensitive:
    INSERT / UPDATE / DELETE are row changes; HEARTBEAT, TRANSACTION_BEGIN, TRANSACTION_END, GTID,
    XACOMMIT and XAROLLBACK are control events; CREATE, ALTER, ERASE, QUERY, TRUNCATE, RENAME,
    CINDEX and DINDEX are DDL with the statement in payload.ddl.text. Any other op is quarantined.
-#}
{%- set message_schema -%}
struct<
    version: string,
    `schema`: struct<
        source: struct<dbType: string, dbVersion: string, dbName: string, `schema`: string, `table`: string>,
        `column`: array<struct<name: string, type: string>>,
        pk: array<string>
    >,
    payload: struct<
        before: struct<data: map<string, string>>,
        after: struct<data: map<string, string>>,
        op: string,
        `timestamp`: struct<eventTime: string, systemTime: string, checkpointTime: string>,
        ddl: string,
        scn: string
    >
>
{%- endset -%}

with

messages as (
    {{ cdc_parse_messages(
        source('oms_dataworks', 'raw_messages'),
        source('cdc_landing', 'landings'),
        'oms_dataworks',
        message_schema | replace('\n', ' '),
        map_fields=['payload.before.data', 'payload.after.data']
    ) }}
),

classified as (
    select
        *,
        message.payload.op as event_type,
        case
            when parse_state != 'ok' then 'quarantine'
            when message.payload.op in ('INSERT', 'UPDATE', 'DELETE') then 'change'
            when
                message.payload.op in (
                    'HEARTBEAT', 'TRANSACTION_BEGIN', 'TRANSACTION_END', 'GTID', 'XACOMMIT', 'XAROLLBACK'
                )
                then 'control'
            when
                message.payload.op in (
                    'CREATE', 'ALTER', 'ERASE', 'QUERY', 'TRUNCATE', 'RENAME', 'CINDEX', 'DINDEX'
                )
                then 'ddl'
            else 'quarantine'
        end as message_kind,
        nullif(
            concat_ws(
                '.',
                nullif(message.`schema`.source.dbName, ''),
                nullif(message.`schema`.source.`schema`, '')
            ),
            ''
        ) as source_database,
        nullif(message.`schema`.source.`table`, '') as source_table,
        array_distinct(
            filter(
                transform(message.`schema`.`column`, source_column -> source_column.name),
                column_name -> column_name is not null
            )
        ) as column_names,
        filter(array_distinct(message.`schema`.pk), key_column -> coalesce(key_column, '') != '')
            as primary_key_names,
        {{ cdc_epoch_to_timestamp('message.payload.`timestamp`.eventTime') }} as event_ts
    from messages
),

shaped as (
    select
        *,
        case
            when message_kind = 'change' then
                case event_type
                    when 'INSERT' then 'insert'
                    when 'UPDATE' then 'update'
                    when 'DELETE' then 'delete'
                end
        end as op,
        case
            when
                message_kind = 'change'
                and event_type in ('UPDATE', 'DELETE')
                and size(message.payload.before.data) > 0
                then message.payload.before.data
        end as before,
        case
            when
                message_kind = 'change'
                and event_type in ('INSERT', 'UPDATE')
                and size(message.payload.after.data) > 0
                then message.payload.after.data
        end as after,
        case when size(primary_key_names) > 0 then primary_key_names end as key_columns,
        case
            when size(column_names) > 0
                then map_from_arrays(
                    column_names,
                    transform(
                        column_names,
                        column_name -> try_element_at(
                            filter(message.`schema`.`column`, source_column -> source_column.name = column_name), 1
                        ).type
                    )
                )
        end as column_types,
        case
            when message_kind = 'ddl'
                then
                    case
                        when ltrim(message.payload.ddl) like '{{ "{%" }}'
                            then get_json_object(message.payload.ddl, '$.text')
                        else message.payload.ddl
                    end
        end as ddl_sql
    from classified
),

unified as (
    select
        message_id,
        landing_seq,
        message_index,
        element_index,
        case when message_kind = 'change' then 0 end as row_index,
        'oms_dataworks' as source_format,
        event_type,
        source_database,
        source_table,
        op,
        key_columns,
        before,
        after,
        column_types,
        case when message_kind = 'ddl' then event_type end as ddl_type,
        ddl_sql,
        event_ts,
        try_cast(message.payload.scn as bigint) as source_log_pos,
        concat_ws('/', message.payload.scn, message.payload.`timestamp`.eventTime) as source_event_id,
        case
            when message_kind = 'quarantine' and parse_state = 'ok'
                then concat('unknown Dataworks payload.op: ', coalesce(message.payload.op, '(missing)'))
            when message_kind = 'quarantine'
                then {{ cdc_parse_failure_reason('parse_state', 'oms_dataworks') }}
            when message_kind = 'change' and source_table is null then 'missing table name'
            when message_kind = 'change' and event_type = 'DELETE' and before is null
                then 'Dataworks DELETE message without payload.before.data'
            when message_kind = 'change' and event_type != 'DELETE' and after is null
                then concat('Dataworks ', event_type, ' message without payload.after.data')
            when message_kind = 'ddl' and ddl_sql is null then 'Dataworks DDL message without payload.ddl.text'
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
        'event_kind', 'event_type', 'source_database', 'source_table', 'op', 'key_columns', 'before',
        'after', 'column_types', 'ddl_type', 'ddl_sql', 'event_ts', 'source_log_pos',
        'source_event_id', 'quarantine_reason', 'raw_message', 'source_uri', 'kafka_topic',
        'kafka_partition', 'kafka_offset', 'landed_at'
    ]) }}
from final
