{% macro cdc_staging_columns() %}
    {#- The column contract every stg_<format>__changes model fills (name, Spark type). -#}
    {{ return([
        {'name': 'message_id', 'type': 'string'},
        {'name': 'landing_seq', 'type': 'bigint'},
        {'name': 'message_index', 'type': 'bigint'},
        {'name': 'element_index', 'type': 'int'},
        {'name': 'row_index', 'type': 'int'},
        {'name': 'source_format', 'type': 'string'},
        {'name': 'event_kind', 'type': 'string'},
        {'name': 'event_type', 'type': 'string'},
        {'name': 'source_database', 'type': 'string'},
        {'name': 'source_table', 'type': 'string'},
        {'name': 'op', 'type': 'string'},
        {'name': 'key_columns', 'type': 'array<string>'},
        {'name': 'row_key_values', 'type': 'array<string>'},
        {'name': 'before', 'type': 'map<string,string>'},
        {'name': 'after', 'type': 'map<string,string>'},
        {'name': 'column_types', 'type': 'map<string,string>'},
        {'name': 'column_jdbc_types', 'type': 'map<string,string>'},
        {'name': 'ddl_type', 'type': 'string'},
        {'name': 'ddl_sql', 'type': 'string'},
        {'name': 'ddl_key_columns', 'type': 'array<string>'},
        {'name': 'event_ts', 'type': 'timestamp'},
        {'name': 'source_log_file', 'type': 'string'},
        {'name': 'source_log_pos', 'type': 'bigint'},
        {'name': 'emitted_ts', 'type': 'timestamp'},
        {'name': 'source_batch_id', 'type': 'bigint'},
        {'name': 'source_event_id', 'type': 'string'},
        {'name': 'transaction_id', 'type': 'string'},
        {'name': 'quarantine_reason', 'type': 'string'},
        {'name': 'raw_message', 'type': 'string'},
        {'name': 'source_uri', 'type': 'string'},
        {'name': 'kafka_topic', 'type': 'string'},
        {'name': 'kafka_partition', 'type': 'int'},
        {'name': 'kafka_offset', 'type': 'bigint'},
        {'name': 'landed_at', 'type': 'timestamp'},
    ]) }}
{% endmacro %}


{% macro cdc_fill_staging_columns(provided_columns) %}
    {#-
        The select list of a staging model: every contract column, in contract order, cast to its
        type; columns the format does not provide become typed nulls (Fivetran's
        fill_staging_columns pattern), so the union of all formats is a plain `union all`.
        raw_message is kept on quarantine rows only (the landing table keeps every message). Key
        columns name each column once (a message may repeat one, `"pkNames": ["id", "id"]`; the
        primary key is a map of them, which fails on a repeated key).
    -#}
    {%- set provided = provided_columns | map('lower') | list -%}
    {%- for column in cdc_staging_columns() %}
        {% if column.name == 'raw_message' and column.name in provided -%}
            case when event_kind = 'quarantine' then raw_message end as raw_message
        {%- elif column.name in ('key_columns', 'ddl_key_columns') and column.name in provided -%}
            array_distinct(cast({{ column.name }} as {{ column.type }})) as {{ column.name }}
        {%- elif column.name in provided -%}
            cast({{ column.name }} as {{ column.type }}) as {{ column.name }}
        {%- else -%}
            cast(null as {{ column.type }}) as {{ column.name }}
        {%- endif -%}
        {{ "," if not loop.last }}
    {%- endfor %}
{% endmacro %}
