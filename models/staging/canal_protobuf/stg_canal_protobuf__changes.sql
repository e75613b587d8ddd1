{#-
    Canal protobuf messages, decoded at landing into a JSON array with one object per Entry
    (cdc_lake.decoders.canal_protobuf; defaults of absent `oneof xxx_present` fields already
    applied): one row per row of a ROWDATA INSERT/UPDATE/DELETE entry, one row per DDL entry,
    one control row per transaction begin/end, heartbeat, GTID or XA entry, and quarantine rows
    for messages, entries or rows that cannot be used. Rows carry their full before image
    (beforeColumns) and after image (afterColumns); key columns come from Column.isKey.
-#}
{%- set message_schema -%}
struct<
    batchId: string,
    entryType: string,
    logfileName: string,
    logfileOffset: string,
    executeTime: string,
    schemaName: string,
    tableName: string,
    gtid: string,
    eventType: string,
    isDdl: string,
    `sql`: string,
    pkNames: array<string>,
    mysqlType: map<string, string>,
    sqlType: map<string, string>,
    rows: array<struct<before: map<string, string>, after: map<string, string>>>,
    transactionId: string
>
{%- endset -%}

with

messages as (
    {{ cdc_parse_messages(
        source('canal_protobuf', 'raw_messages'),
        source('cdc_landing', 'landings'),
        'canal_protobuf',
        message_schema | replace('\n', ' ')
    ) }}
),

classified as (
    select
        *,
        case
            when parse_state = 'tombstone' then 'TOMBSTONE'
            when upper(message.entryType) = 'ROWDATA' then upper(message.eventType)
            else upper(message.entryType)
        end as event_type,
        case
            when parse_state = 'tombstone' then 'control'
            when parse_state != 'ok' then 'quarantine'
            when upper(message.entryType) in ('TRANSACTIONBEGIN', 'TRANSACTIONEND', 'HEARTBEAT', 'GTIDLOG')
                then 'control'
            when upper(message.entryType) != 'ROWDATA' then 'quarantine'
            when
                lower(message.isDdl) = 'true'
                or upper(message.eventType) in (
                    'CREATE', 'ALTER', 'ERASE', 'QUERY', 'TRUNCATE', 'RENAME', 'CINDEX', 'DINDEX'
                )
                then 'ddl'
            when upper(message.eventType) in ('INSERT', 'UPDATE', 'DELETE') then 'change'
            when upper(message.eventType) in ('GTID', 'XACOMMIT', 'XAROLLBACK', 'MHEARTBEAT') then 'control'
            else 'quarantine'
        end as message_kind,
        nullif(message.schemaName, '') as source_database,
        nullif(message.tableName, '') as source_table,
        {{ cdc_epoch_to_timestamp("nullif(message.executeTime, '0')") }} as event_ts,
        nullif(message.logfileName, '') as source_log_file,
        try_cast(message.logfileOffset as bigint) as source_log_pos,
        concat_ws('/', message.batchId, message.logfileName, message.logfileOffset, message.executeTime)
            as source_event_id,
        coalesce(nullif(message.gtid, ''), message.transactionId) as transaction_id,
        case when size(message.pkNames) > 0 then message.pkNames end as key_columns
    from messages
),

entry_rows as (
    -- one row per row of a change entry, one row for any other entry; a single pass, so every
    -- message is parsed once
    select
        classified.*,
        exploded.row_index,
        exploded.row_image
    from classified
        lateral view outer posexplode(
            case when classified.message_kind = 'change' then classified.message.rows end
        ) exploded as row_index, row_image
),

changes_and_entries as (
    select
        *,
        case when message_kind = 'change' then lower(event_type) end as op,
        case when message_kind = 'change' and event_type in ('UPDATE', 'DELETE') then row_image.before end
            as before,
        case when message_kind = 'change' and event_type in ('INSERT', 'UPDATE') then row_image.after end
            as after,
        case
            when message_kind = 'change' and source_table is null then 'missing table name'
            when message_kind = 'change' and row_image is null
                then concat('Canal ', event_type, ' entry without rows')
            when message_kind = 'change' and event_type = 'DELETE' and row_image.before is null
                then 'Canal DELETE row without beforeColumns'
            when message_kind = 'change' and event_type in ('INSERT', 'UPDATE') and row_image.after is null
                then concat('Canal ', event_type, ' row without afterColumns')
            when message_kind = 'quarantine' and parse_state = 'ok' and upper(message.entryType) != 'ROWDATA'
                then concat('unknown Canal entry type: ', coalesce(message.entryType, '(missing)'))
            when message_kind = 'quarantine' and parse_state = 'ok'
                then concat('unknown Canal event type: ', coalesce(message.eventType, '(missing)'))
            when message_kind = 'quarantine'
                then {{ cdc_parse_failure_reason('parse_state', 'canal_protobuf') }}
        end as quarantine_reason,
        case
            when message_kind = 'ddl'
                then
                    case
                        when upper(message.eventType) in (
                            'CREATE', 'ALTER', 'ERASE', 'QUERY', 'TRUNCATE', 'RENAME', 'CINDEX', 'DINDEX'
                        ) then upper(message.eventType)
                        else {{ cdc_classify_ddl('message.`sql`') }}
                    end
        end as ddl_type,
        case when message_kind = 'ddl' then message.`sql` end as ddl_sql,
        message.mysqlType as column_types,
        message.sqlType as column_jdbc_types
    from entry_rows
),

unified as (
    select
        *,
        'canal_protobuf' as source_format,
        case when quarantine_reason is not null then 'quarantine' else message_kind end as event_kind
    from changes_and_entries
)

select
    {{ cdc_fill_staging_columns([
        'message_id', 'landing_seq', 'message_index', 'element_index', 'row_index', 'source_format',
        'event_kind', 'event_type', 'source_database', 'source_table', 'op', 'key_columns', 'before',
        'after', 'column_types', 'column_jdbc_types', 'ddl_type', 'ddl_sql', 'event_ts',
        'source_log_file', 'source_log_pos', 'source_event_id', 'transaction_id',
        'quarantine_reason', 'raw_message', 'source_uri', 'kafka_topic', 'kafka_partition',
        'kafka_offset', 'landed_at'
    ]) }}
from unified
