{#-
    Canal FlatMessage JSON: one row per element of `data` for DML, one row per DDL or control
    message, one row per message or row that cannot be used (quarantine).
    An UPDATE's before image is data[i] overlaid with old[i] (old lists only changed columns; a
    key present with null means the before value was NULL). Each row uses its own old[i].
-#}
{%- set message_schema -%}
struct<
    data: array<map<string, string>>,
    old: array<map<string, string>>,
    database: string,
    `table`: string,
    type: string,
    isDdl: string,
    pkNames: array<string>,
    es: string,
    ts: string,
    id: string,
    `sql`: string,
    mysqlType: map<string, string>,
    sqlType: map<string, string>,
    tableChanges: struct<table: struct<primaryKeyColumnNames: array<string>>>
>
{%- endset -%}

with

messages as (
    {{ cdc_parse_messages(
        source('canal_json', 'raw_messages'),
        source('cdc_landing', 'landings'),
        'canal_json',
        message_schema | replace('\n', ' '),
        map_fields=['data[]', 'old[]', 'mysqlType', 'sqlType']
    ) }}
),

classified as (
    select
        *,
        upper(message.type) as event_type,
        case
            when parse_state != 'ok' then 'quarantine'
            when
                lower(message.isDdl) = 'true'
                or upper(message.type) in (
                    'CREATE', 'ALTER', 'ERASE', 'QUERY', 'TRUNCATE', 'RENAME', 'CINDEX', 'DINDEX'
                )
                then 'ddl'
            when upper(message.type) in ('INSERT', 'UPDATE', 'DELETE', 'INIT', 'ROW') then 'change'
            when
                upper(message.type) in (
                    'GTID', 'XACOMMIT', 'XAROLLBACK', 'MHEARTBEAT', 'HEARTBEAT',
                    'TRANSACTIONBEGIN', 'TRANSACTIONEND'
                )
                then 'control'
            else 'quarantine'
        end as message_kind,
        nullif(message.database, '') as source_database,
        nullif(message.`table`, '') as source_table,
        {{ cdc_epoch_to_timestamp('message.es') }} as event_ts,
        {{ cdc_epoch_to_timestamp('message.ts') }} as emitted_ts,
        try_cast(message.id as bigint) as source_batch_id,
        concat_ws('/', message.id, message.es, message.ts) as source_event_id,
        case
            when size(array_distinct(message.pkNames)) > 0
                then array_distinct(message.pkNames)
        end as key_columns
    from messages
),

message_rows as (
    -- one row per element of `data` for a change message (each with its own old[i]), one row
    -- for any other message; a single pass, so every message is parsed once
    select
        classified.*,
        exploded.row_index,
        exploded.data_row,
        try_element_at(classified.message.old, exploded.row_index + 1) as old_row
    from classified
        lateral view outer posexplode(
            case when classified.message_kind = 'change' then classified.message.data end
        ) exploded as row_index, data_row
),

changes_and_messages as (
    select
        *,
        case
            when message_kind = 'change'
                then
                    case event_type
                        when 'INSERT' then 'insert'
                        when 'UPDATE' then 'update'
                        when 'DELETE' then 'delete'
                        else 'snapshot'
                    end
        end as op,
        case
            when message_kind = 'change' and event_type = 'UPDATE'
                then map_concat(
                    map_filter(
                        data_row,
                        (column_name, column_value) -> not array_contains(
                            map_keys(coalesce(old_row, map())), column_name
                        )
                    ),
                    coalesce(old_row, map())
                )
            when message_kind = 'change' and event_type = 'DELETE' then data_row
        end as before,
        case when message_kind = 'change' and event_type != 'DELETE' then data_row end as after,
        case
            when message_kind = 'change' and source_table is null then 'missing table name'
            when message_kind = 'change' and data_row is null
                then concat('Canal ', event_type, ' message without rows in data')
            when message_kind = 'quarantine' and parse_state = 'ok'
                then concat('unknown Canal type: ', coalesce(message.type, '(missing)'))
            when message_kind != 'change'
                then {{ cdc_parse_failure_reason('parse_state', 'canal_json') }}
        end as quarantine_reason,
        case
            when message_kind = 'ddl'
                then
                    case
                        when upper(message.type) in (
                            'CREATE', 'ALTER', 'ERASE', 'QUERY', 'TRUNCATE', 'RENAME', 'CINDEX', 'DINDEX'
                        ) then upper(message.type)
                        else {{ cdc_classify_ddl('message.`sql`') }}
                    end
        end as ddl_type,
        case when message_kind != 'change' then message.`sql` end as ddl_sql,
        case
            when message_kind != 'change' then message.tableChanges.table.primaryKeyColumnNames
        end as ddl_key_columns,
        message.mysqlType as column_types,
        message.sqlType as column_jdbc_types
    from message_rows
),

unified as (
    select
        *,
        'canal_json' as source_format,
        case when quarantine_reason is not null then 'quarantine' else message_kind end as event_kind
    from changes_and_messages
)

select
    {{ cdc_fill_staging_columns([
        'message_id', 'landing_seq', 'message_index', 'element_index', 'row_index', 'source_format',
        'event_kind', 'event_type', 'source_database', 'source_table', 'op', 'key_columns', 'before',
        'after', 'column_types', 'column_jdbc_types', 'ddl_type', 'ddl_sql', 'ddl_key_columns',
        'event_ts', 'emitted_ts', 'source_batch_id', 'source_event_id', 'quarantine_reason',
        'raw_message', 'source_uri', 'kafka_topic', 'kafka_partition', 'kafka_offset', 'landed_at'
    ]) }}
from unified
