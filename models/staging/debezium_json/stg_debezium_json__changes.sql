{#-
    Debezium envelope JSON, with or without `schema`: op c/u/d/r (and CloudCanal's i) are row
    changes, schema-change events (`ddl`) and op t are DDL, transaction markers, heartbeats and
    tombstones (null value) are control events. The key columns come from the Kafka key, else from
    seeds/DDL downstream. column_types comes from `schema` (per field of before/after: the logical
    type name, Decimal with its precision and scale, else the Connect type), or, for a schema change
    event, from tableChanges' columns (with column_jdbc_types).
-#}
{%- set envelope_fields = [
    'op string', 'before map<string, string>', 'after map<string, string>',
    'source map<string, string>', 'ts_ms string', 'ddl string', 'databaseName string',
    'schemaName string', 'tableChanges string', 'transaction map<string, string>',
    'status string', 'id string'
] -%}
{%- set envelope = 'struct<' ~ (envelope_fields | join(', ')) ~ '>' -%}
{%- set message_schema = 'struct<schema: string, payload: ' ~ envelope ~ ', '
    ~ (envelope_fields | join(', ')) ~ '>' -%}
{%- set table_change = 'struct<type: string, id: string, '
    ~ 'table: struct<primaryKeyColumnNames: array<string>, columns: array<struct<name: string, '
    ~ 'jdbcType: string, typeName: string, typeExpression: string, length: string, scale: string>>>>' -%}
{#- The value schema of a message with `schema`: per field of before/after, its Connect type, its
    logical type name and parameters (Decimal's scale and connect.decimal.precision). -#}
{%- set value_schema = 'struct<fields: array<struct<field: string, fields: array<struct<field: string, '
    ~ 'type: string, name: string, parameters: map<string, string>>>>>>' -%}

with

messages as (
    {{ cdc_parse_messages(
        source('debezium_json', 'raw_messages'),
        source('cdc_landing', 'landings'),
        'debezium_json',
        message_schema,
        map_fields=[
            'payload.before', 'payload.after', 'payload.source', 'payload.transaction',
            'before', 'after', 'source', 'transaction'
        ]
    ) }}
),

envelopes as (
    select
        *,
        {%- for field in envelope_fields %}
        {%- set name = field.split(' ')[0] %}
        if(message.payload is not null, message.payload.{{ name }}, message.{{ name }}) as env_{{ name }},
        {%- endfor %}
        coalesce(
            from_json(kafka_key, 'struct<payload: map<string, string>>').payload,
            from_json(kafka_key, 'map<string, string>')
        ) as key_payload,
        coalesce(
            try_element_at(
                filter(
                    from_json(message.schema, '{{ value_schema }}', {{ cdc_json_options() }}).fields,
                    envelope_field -> envelope_field.field = 'after'
                ),
                1
            ).fields,
            try_element_at(
                filter(
                    from_json(message.schema, '{{ value_schema }}', {{ cdc_json_options() }}).fields,
                    envelope_field -> envelope_field.field = 'before'
                ),
                1
            ).fields
        ) as value_fields
    from messages
),

classified as (
    select
        *,
        lower(env_op) as event_op,
        case
            when parse_state = 'tombstone' then 'control'
            when parse_state != 'ok' then 'quarantine'
            when env_ddl is not null or lower(env_op) in ('a', 't') then 'ddl'
            when lower(env_op) in ('c', 'i', 'u', 'd', 'r') then 'change'
            when upper(env_status) in ('BEGIN', 'END') or lower(env_op) = 'm' then 'control'
            when env_op is null and env_before is null and env_after is null and env_ts_ms is not null
                then 'control'
            else 'quarantine'
        end as message_kind,
        case
            when ltrim(env_tableChanges) like '{{ "{%" }}'
                then array(from_json(env_tableChanges, '{{ table_change }}'))
            else from_json(env_tableChanges, 'array<{{ table_change }}>')
        end as table_changes,
        coalesce(
            {{ cdc_epoch_to_timestamp("nullif(env_source['ts_ms'], '0')") }},
            {{ cdc_epoch_to_timestamp('env_ts_ms') }}
        ) as event_ts
    from envelopes
),

schema_checked as (
    {#- column_types is a map built from `schema` or tableChanges: a field or column without a
        name, or a name twice, would fail the build there, so the message is quarantined. -#}
    select
        *,
        coalesce(
            {{ cdc_key_problem(
                'transform(value_fields, value_field -> value_field.field)',
                "'schema: the field names of after (or before)'"
            ) }},
            case when message_kind = 'ddl' then {{ cdc_key_problem(
                'transform(try_element_at(table_changes, 1).table.columns, table_column -> table_column.name)',
                "'tableChanges[0].table.columns: the column names'"
            ) }} end
        ) as schema_problem
    from classified
),

shaped as (
    select
        *,
        case
            when message_kind = 'change' then
                case event_op
                    when 'c' then 'insert'
                    when 'i' then 'insert'
                    when 'u' then 'update'
                    when 'd' then 'delete'
                    when 'r' then 'snapshot'
                end
        end as op,
        case
            when
                env_source['schema'] is not null
                and lower(env_source['connector']) in ('postgresql', 'sqlserver', 'oracle', 'db2')
                then concat_ws('.', coalesce(env_source['db'], env_databaseName), env_source['schema'])
            else coalesce(nullif(env_source['db'], ''), env_databaseName)
        end as source_database,
        coalesce(
            nullif(env_source['table'], ''),
            regexp_extract(try_element_at(table_changes, 1).id, '"?([^".]+)"?$', 1)
        ) as source_table,
        case
            when message_kind = 'control'
                then
                    case
                        when parse_state = 'tombstone' then 'TOMBSTONE'
                        when env_status is not null then concat('TRANSACTION_', upper(env_status))
                        when lower(env_op) = 'm' then 'MESSAGE'
                        else 'HEARTBEAT'
                    end
            when parse_state = 'ok' then coalesce(env_op, if(env_ddl is not null, 'ddl', null))
        end as event_type,
        case when size(key_payload) > 0 then map_keys(key_payload) end as key_columns,
        case when size(env_before) > 0 then env_before end as before_image,
        case when size(env_after) > 0 then env_after end as after_image,
        {#- Type text per column: the logical type name when there is one (Decimal with its
            parameters, e.g. org.apache.kafka.connect.data.Decimal(precision=10,scale=2)), else the
            Connect type (int32, int64, string, bytes, ...). DDL events give tableChanges' columns. -#}
        case
            when schema_problem is not null then null
            when size(value_fields) > 0
                then map_from_entries(transform(
                    value_fields,
                    value_field -> struct(
                        value_field.field,
                        case
                            when value_field.name = 'org.apache.kafka.connect.data.Decimal'
                                then concat(
                                    value_field.name, '(',
                                    concat_ws(
                                        ',',
                                        'precision=' || value_field.parameters['connect.decimal.precision'],
                                        'scale=' || value_field.parameters['scale']
                                    ),
                                    ')'
                                )
                            else coalesce(value_field.name, value_field.type)
                        end
                    )
                ))
            when message_kind = 'ddl' and size(try_element_at(table_changes, 1).table.columns) > 0
                then map_from_entries(transform(
                    try_element_at(table_changes, 1).table.columns,
                    table_column -> struct(
                        table_column.name,
                        case
                            when table_column.typeExpression like '%(%' then table_column.typeExpression
                            else concat(
                                coalesce(table_column.typeName, table_column.typeExpression),
                                case
                                    when nullif(table_column.length, '') is not null
                                        then concat(
                                            '(', table_column.length,
                                            coalesce(',' || nullif(table_column.scale, ''), ''), ')'
                                        )
                                    else ''
                                end
                            )
                        end
                    )
                ))
        end as column_types,
        case
            when schema_problem is not null then null
            when message_kind = 'ddl' and size(try_element_at(table_changes, 1).table.columns) > 0
                then map_from_entries(transform(
                    try_element_at(table_changes, 1).table.columns,
                    table_column -> struct(table_column.name, table_column.jdbcType)
                ))
        end as column_jdbc_types
    from schema_checked
),

unified as (
    select
        message_id,
        landing_seq,
        message_index,
        element_index,
        try_cast(env_source['row'] as int) as row_index,
        'debezium_json' as source_format,
        case
            when schema_problem is not null then 'quarantine'
            when message_kind = 'change' and source_table is null then 'quarantine'
            else message_kind
        end as event_kind,
        event_type,
        source_database,
        source_table,
        op,
        key_columns,
        case when op in ('update', 'delete') then before_image end as before,
        case when op in ('insert', 'update', 'snapshot') then after_image end as after,
        column_types,
        column_jdbc_types,
        case
            when message_kind = 'ddl'
                then
                    case
                        when lower(env_op) = 't' then 'TRUNCATE'
                        when env_ddl is not null then {{ cdc_classify_ddl('env_ddl') }}
                        when upper(try_element_at(table_changes, 1).type) = 'DROP' then 'ERASE'
                        else upper(coalesce(try_element_at(table_changes, 1).type, 'ALTER'))
                    end
        end as ddl_type,
        case when message_kind = 'ddl' then env_ddl end as ddl_sql,
        try_element_at(table_changes, 1).table.primaryKeyColumnNames as ddl_key_columns,
        event_ts,
        env_source['file'] as source_log_file,
        try_cast(coalesce(env_source['pos'], env_source['lsn']) as bigint) as source_log_pos,
        {{ cdc_epoch_to_timestamp('env_ts_ms') }} as emitted_ts,
        concat_ws(
            '/', env_source['file'], env_source['pos'], env_source['row'], env_source['lsn'], env_ts_ms
        ) as source_event_id,
        coalesce(env_transaction['id'], env_source['gtid'], env_source['txId'], env_id) as transaction_id,
        case
            when message_kind = 'quarantine' and parse_state = 'ok'
                then concat('unknown Debezium op: ', coalesce(env_op, '(missing)'))
            when message_kind = 'quarantine' then {{ cdc_parse_failure_reason('parse_state', 'debezium_json') }}
            when schema_problem is not null then schema_problem
            when message_kind = 'change' and source_table is null then 'missing table name'
        end as quarantine_reason,
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
        'event_ts', 'source_log_file',
        'source_log_pos', 'emitted_ts', 'source_event_id', 'transaction_id', 'quarantine_reason',
        'raw_message', 'source_uri', 'kafka_topic', 'kafka_partition', 'kafka_offset', 'landed_at'
    ]) }}
from unified
