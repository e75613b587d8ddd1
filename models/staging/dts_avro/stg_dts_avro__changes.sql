{#-
    Aliyun DTS Avro Records, decoded at landing into a JSON envelope (cdc_lake.decoders.dts_avro,
    values already rendered to text): INSERT, UPDATE, DELETE and INIT (full-load rows) are row
    changes, DDL records are DDL statements, every other operation (BEGIN, COMMIT, HEARTBEAT, ...)
    is a control event; Kafka tombstones are control events and undecodable bytes are quarantined.
    Key columns come from the pk_uk_info tag (its PRIMARY entry), else from the seed or DDL.
-#}
{%- set message_schema -%}
struct<
    id: string,
    sourceTimestamp: string,
    sourcePosition: string,
    sourceTxid: string,
    operation: string,
    objectName: string,
    tags: map<string, string>,
    columnTypes: map<string, string>,
    before: map<string, string>,
    after: map<string, string>,
    ddl: string
>
{%- endset -%}

with

messages as (
    {{ cdc_parse_messages(
        source('dts_avro', 'raw_messages'),
        source('cdc_landing', 'landings'),
        'dts_avro',
        message_schema | replace('\n', ' ')
    ) }}
),

classified as (
    select
        *,
        case
            when parse_state = 'tombstone' then 'TOMBSTONE'
            else upper(message.operation)
        end as event_type,
        case
            when parse_state = 'tombstone' then 'control'
            when parse_state != 'ok' then 'quarantine'
            when upper(message.operation) in ('INSERT', 'UPDATE', 'DELETE', 'INIT') then 'change'
            when upper(message.operation) = 'DDL' then 'ddl'
            when
                upper(message.operation) in (
                    'BEGIN', 'COMMIT', 'ROLLBACK', 'ABORT', 'HEARTBEAT', 'CHECKPOINT', 'COMMAND', 'FILL',
                    'FINISH', 'CONTROL', 'RDB', 'NOOP'
                )
                then 'control'
            else 'quarantine'
        end as message_kind,
        case
            when message.objectName like '%.%'
                then regexp_extract(message.objectName, '^(.*)\\.[^.]*$', 1)
            else nullif(message.objectName, '')
        end as source_database,
        case
            when message.objectName like '%.%'
                then nullif(regexp_extract(message.objectName, '\\.([^.]*)$', 1), '')
        end as source_table,
        from_json(
            message.tags['pk_uk_info'], 'map<string, array<string>>'
        )['PRIMARY'] as primary_key_columns
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
                    when 'INIT' then 'snapshot'
                end
        end as op
    from classified
),

unified as (
    select
        message_id,
        landing_seq,
        message_index,
        element_index,
        case when message_kind = 'change' then 0 end as row_index,
        'dts_avro' as source_format,
        event_type,
        source_database,
        source_table,
        op,
        case when size(primary_key_columns) > 0 then primary_key_columns end as key_columns,
        case when op in ('update', 'delete') then message.before end as before,
        case when op in ('insert', 'update', 'snapshot') then message.after end as after,
        message.columnTypes as column_types,
        case when message_kind = 'ddl' then {{ cdc_classify_ddl('message.ddl') }} end as ddl_type,
        case when message_kind = 'ddl' then message.ddl end as ddl_sql,
        {{ cdc_epoch_to_timestamp('message.sourceTimestamp') }} as event_ts,
        try_cast(message.id as bigint) as source_log_pos,
        concat_ws('/', message.sourcePosition, message.id) as source_event_id,
        nullif(message.sourceTxid, '') as transaction_id,
        case
            when message_kind = 'quarantine' and parse_state = 'ok'
                then concat('unknown DTS operation: ', coalesce(message.operation, '(missing)'))
            when message_kind = 'quarantine' then {{ cdc_parse_failure_reason('parse_state', 'dts_avro') }}
            when message_kind = 'change' and source_table is null then 'missing table name'
            when op = 'delete' and message.before is null then 'DTS DELETE record without beforeImages'
            when op in ('insert', 'update', 'snapshot') and message.after is null
                then concat('DTS ', event_type, ' record without afterImages')
            when message_kind = 'ddl' and nullif(trim(message.ddl), '') is null
                then 'DTS DDL record without a statement'
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

labelled as (
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
        'source_event_id', 'transaction_id', 'quarantine_reason', 'raw_message', 'source_uri',
        'kafka_topic', 'kafka_partition', 'kafka_offset', 'landed_at'
    ]) }}
from labelled
