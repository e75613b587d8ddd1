{#-
    CloudCanal JSON: one row per row of a ROWDATA message (`action` INSERT/UPDATE/DELETE; several
    rows per message, before[i] pairs with data[i]), one row per DDL (`isDdl`, or `ddl` as real
    messages spell it), one control row per other entryType (TRANSACTIONEND, ...), one row per
    message or row that cannot be used (quarantine).
    Before images: data[i] overlaid with before[i], so a `before` that lists only changed columns
    and one that lists the full row both work. A DELETE's row may come in `data` or in `before`
    (the documentation does not say which; both are accepted).
-#}
{%- set message_schema -%}
struct<
    action: string,
    bid: string,
    before: array<map<string, string>>,
    data: array<map<string, string>>,
    db: string,
    `schema`: string,
    `table`: string,
    dbValType: map<string, string>,
    jdbcType: map<string, string>,
    entryType: string,
    isDdl: string,
    ddl: string,
    pks: array<string>,
    execTs: string,
    sendTs: string,
    `sql`: string,
    tableChanges: struct<table: struct<primaryKeyColumnNames: array<string>>, type: string>
>
{%- endset -%}
{%- set canal_ddl_types = "'CREATE', 'ALTER', 'ERASE', 'QUERY', 'TRUNCATE', 'RENAME', 'CINDEX', 'DINDEX'" -%}

with

messages as (
    {{ cdc_parse_messages(
        source('cloudcanal_json', 'raw_messages'),
        source('cdc_landing', 'landings'),
        'cloudcanal_json',
        message_schema | replace('\n', ' '),
        map_fields=['before[]', 'data[]', 'dbValType', 'jdbcType']
    ) }}
),

classified as (
    select
        *,
        upper(trim(message.action)) as action_name,
        upper(trim(coalesce(message.entryType, 'ROWDATA'))) as entry_type,
        case
            when parse_state != 'ok' then 'quarantine'
            when upper(trim(coalesce(message.entryType, 'ROWDATA'))) != 'ROWDATA' then 'control'
            when
                lower(coalesce(message.isDdl, message.ddl)) = 'true'
                or upper(trim(message.action)) in ({{ canal_ddl_types }}, 'DROP')
                then 'ddl'
            when upper(trim(message.action)) in ('INSERT', 'UPDATE', 'DELETE') then 'change'
            else 'quarantine'
        end as message_kind,
        case
            when coalesce(message.`schema`, '') = '' or message.`schema` = message.db
                then nullif(message.db, '')
            when coalesce(message.db, '') = '' then message.`schema`
            else concat(message.db, '.', message.`schema`)
        end as source_database,
        nullif(message.`table`, '') as source_table,
        coalesce(
            {{ cdc_epoch_to_timestamp('message.execTs') }},
            {{ cdc_epoch_to_timestamp('message.sendTs') }}
        ) as event_ts,
        {{ cdc_epoch_to_timestamp('message.sendTs') }} as emitted_ts,
        try_cast(message.bid as bigint) as source_batch_id,
        concat_ws('/', message.bid, message.execTs, message.sendTs) as source_event_id,
        case when size(array_distinct(message.pks)) > 0 then array_distinct(message.pks) end as key_columns
    from messages
),

row_slots as (
    {#- Change messages: one slot per row (a DELETE's rows may be in data or in before); other
        messages: no slot, so the outer explode keeps them as one row with a null row_index. -#}
    select
        *,
        case
            when message_kind != 'change' then 0
            when action_name = 'DELETE' then greatest(size(message.data), size(message.before), 0)
            else greatest(size(message.data), 0)
        end as slot_count
    from classified
),

exploded_rows as (
    select
        row_slots.*,
        exploded.row_index,
        try_element_at(message.data, exploded.row_index + 1) as data_row,
        try_element_at(message.before, exploded.row_index + 1) as before_row
    from row_slots
        lateral view outer posexplode(array_repeat(true, slot_count)) exploded as row_index, row_slot
),

shaped as (
    select
        *,
        case
            when message_kind = 'change' then
                case action_name
                    when 'INSERT' then 'insert'
                    when 'UPDATE' then 'update'
                    when 'DELETE' then 'delete'
                end
        end as op,
        case
            when message_kind != 'change' or action_name = 'INSERT' then null
            when data_row is null then before_row
            when before_row is null then if(action_name = 'DELETE', data_row, null)
            else map_concat(
                map_filter(data_row, (column_name, column_value) -> not map_contains_key(before_row, column_name)),
                before_row
            )
        end as before_image,
        case when message_kind = 'change' and action_name != 'DELETE' then data_row end as after_image,
        case
            when message_kind = 'quarantine' and parse_state = 'ok'
                then concat('unknown CloudCanal action: ', coalesce(message.action, '(missing)'))
            when message_kind = 'quarantine' then {{ cdc_parse_failure_reason('parse_state', 'cloudcanal_json') }}
            when message_kind != 'change' then null
            when source_table is null then 'missing table name'
            when row_index is null then concat('CloudCanal ', action_name, ' message without rows')
            when action_name != 'DELETE' and data_row is null
                then concat('CloudCanal ', action_name, ' row ', row_index, ' is null in data')
            when data_row is null and before_row is null
                then concat('CloudCanal DELETE row ', row_index, ' is null in data and before')
        end as quarantine_reason,
        case
            when message_kind = 'ddl'
                then
                    case
                        when action_name in ({{ canal_ddl_types }}) then action_name
                        when trim(coalesce(message.`sql`, '')) != '' then {{ cdc_classify_ddl('message.`sql`') }}
                        when action_name = 'DROP' then 'ERASE'
                        else coalesce(action_name, 'QUERY')
                    end
        end as ddl_type,
        case
            when message_kind != 'ddl' then null
            when size(message.tableChanges.table.primaryKeyColumnNames) > 0
                then message.tableChanges.table.primaryKeyColumnNames
            else key_columns
        end as ddl_key_columns
    from exploded_rows
),

unified as (
    select
        message_id,
        landing_seq,
        message_index,
        element_index,
        row_index,
        'cloudcanal_json' as source_format,
        case when quarantine_reason is not null then 'quarantine' else message_kind end as event_kind,
        case when message_kind = 'control' then entry_type else message.action end as event_type,
        source_database,
        source_table,
        case when quarantine_reason is null then op end as op,
        key_columns,
        case when quarantine_reason is null then before_image end as before,
        case when quarantine_reason is null then after_image end as after,
        message.dbValType as column_types,
        message.jdbcType as column_jdbc_types,
        ddl_type,
        case when message_kind = 'ddl' then message.`sql` end as ddl_sql,
        ddl_key_columns,
        event_ts,
        emitted_ts,
        source_batch_id,
        source_event_id,
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
        'event_kind', 'event_type', 'source_database', 'source_table', 'op', 'key_columns', 'before',
        'after', 'column_types', 'column_jdbc_types', 'ddl_type', 'ddl_sql', 'ddl_key_columns',
        'event_ts', 'emitted_ts', 'source_batch_id', 'source_event_id', 'quarantine_reason',
        'raw_message', 'source_uri', 'kafka_topic', 'kafka_partition', 'kafka_offset', 'landed_at'
    ]) }}
from unified
