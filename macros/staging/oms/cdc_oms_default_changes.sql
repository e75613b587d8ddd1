{% macro cdc_oms_default_changes(source_relation, landings_relation, format_id) %}
    {#-
        The staging select of the OceanBase OMS "Default" JSON family (oms_default and
        oms_extend_column_type): one row per message, as a change (INSERT, UPDATE, DELETE, and ROW
        = full-load row as op snapshot), a DDL statement (recordType DDL, text in postStruct.ddl),
        a control event (HEARTBEAT) or a quarantine row. `__light_type` inside an image
        (DefaultExtendColumnType) is type metadata, not a column: it is removed from the images
        and its schemaType per column fills column_types. Both formats go through here, so a
        DefaultExtendColumnType message landed as oms_default is read the same way.
    -#}
    {%- set change_types = ['INSERT', 'UPDATE', 'DELETE', 'ROW'] -%}
    {%- set canal_ddl_types = ['CREATE', 'ALTER', 'ERASE', 'QUERY', 'TRUNCATE', 'RENAME', 'CINDEX', 'DINDEX'] -%}
    {%- set metadata_fields = [
        'checkpoint', 'record_primary_key', 'record_primary_value', 'source_identity', 'dbType',
        'storeDataSequence', 'table_name', 'db', 'timestamp', 'uniqueId', 'transId', 'clusterId',
        'ddlType'
    ] -%}
    {%- set message_schema -%}
        struct<
            prevStruct: map<string, string>,
            postStruct: map<string, string>,
            allMetaData: struct<
                {%- for field in metadata_fields %}`{{ field }}`: string{{ ", " if not loop.last }}{% endfor -%}
            >,
            recordType: string
        >
    {%- endset %}

    with

    messages as (
        {{ cdc_parse_messages(
            source_relation,
            landings_relation,
            format_id,
            message_schema | replace('\n', ' '),
            map_fields=['prevStruct', 'postStruct']
        ) }}
    ),

    classified as (
        select
            *,
            upper(message.recordType) as event_type,
            case
                when parse_state != 'ok' then 'quarantine'
                when upper(message.recordType) in ('{{ change_types | join("', '") }}') then 'change'
                when upper(message.recordType) = 'DDL' then 'ddl'
                when upper(message.recordType) = 'HEARTBEAT' then 'control'
                else 'quarantine'
            end as message_kind,
            nullif(message.allMetaData.db, '') as source_database,
            nullif(message.allMetaData.table_name, '') as source_table,
            filter(
                transform(split(message.allMetaData.record_primary_key, '\\x01'), key_column -> trim(key_column)),
                key_column -> key_column != ''
            ) as primary_key_names,
            map_filter(message.prevStruct, (column_name, column_value) -> column_name != '__light_type')
                as prev_image,
            map_filter(message.postStruct, (column_name, column_value) -> column_name != '__light_type')
                as post_image,
            coalesce(
                from_json(message.postStruct['__light_type'], 'map<string, struct<schemaType: string>>'),
                from_json(message.prevStruct['__light_type'], 'map<string, struct<schemaType: string>>')
            ) as light_types,
            coalesce(
                {{ cdc_epoch_to_timestamp('message.allMetaData.`timestamp`') }},
                case
                    when upper(message.recordType) != 'ROW'
                        then {{ cdc_epoch_to_timestamp('message.allMetaData.checkpoint') }}
                end
            ) as event_ts
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
                        when 'ROW' then 'snapshot'
                    end
            end as op,
            case
                when message_kind = 'change' and event_type in ('UPDATE', 'DELETE') and size(prev_image) > 0
                    then prev_image
            end as before,
            case
                when message_kind = 'change' and event_type in ('INSERT', 'UPDATE', 'ROW') and size(post_image) > 0
                    then post_image
            end as after,
            case when size(primary_key_names) > 0 then primary_key_names end as key_columns,
            {{ cdc_map_key_problem('light_types', "'__light_type'") }} as light_types_problem,
            case
                when {{ cdc_map_key_problem('light_types', "'__light_type'") }} is not null then null
                when size(light_types) > 0
                    then transform_values(light_types, (column_name, light_type) -> light_type.schemaType)
            end as column_types,
            case when message_kind = 'ddl' then coalesce(post_image['ddl'], prev_image['ddl']) end as ddl_sql
        from classified
    ),

    unified as (
        select
            message_id,
            landing_seq,
            message_index,
            element_index,
            case when message_kind = 'change' then 0 end as row_index,
            '{{ format_id }}' as source_format,
            event_type,
            source_database,
            source_table,
            op,
            key_columns,
            before,
            after,
            column_types,
            case
                when ddl_sql is null then null
                when upper(message.allMetaData.ddlType) in ('{{ canal_ddl_types | join("', '") }}')
                    then upper(message.allMetaData.ddlType)
                else {{ cdc_classify_ddl('ddl_sql') }}
            end as ddl_type,
            ddl_sql,
            event_ts,
            try_cast(message.allMetaData.storeDataSequence as bigint) as source_log_pos,
            concat_ws(
                '/',
                message.allMetaData.storeDataSequence,
                message.allMetaData.`timestamp`,
                message.allMetaData.uniqueId,
                message.allMetaData.transId
            ) as source_event_id,
            coalesce(message.allMetaData.transId, message.allMetaData.uniqueId) as transaction_id,
            case
                when message_kind = 'quarantine' and parse_state = 'ok'
                    then concat('unknown OMS recordType: ', coalesce(message.recordType, '(missing)'))
                when message_kind = 'quarantine'
                    then {{ cdc_parse_failure_reason('parse_state', format_id) }}
                when message_kind = 'change' and source_table is null then 'missing table name'
                when light_types_problem is not null then light_types_problem
                when message_kind = 'change' and event_type = 'DELETE' and before is null
                    then 'OMS DELETE message without prevStruct'
                when message_kind = 'change' and event_type != 'DELETE' and after is null
                    then concat('OMS ', event_type, ' message without postStruct')
                when message_kind = 'ddl' and ddl_sql is null then 'OMS DDL message without postStruct.ddl'
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
            'source_event_id', 'transaction_id', 'quarantine_reason', 'raw_message', 'source_uri',
            'kafka_topic', 'kafka_partition', 'kafka_offset', 'landed_at'
        ]) }}
    from final
{% endmacro %}
