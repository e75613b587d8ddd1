{#- One row per DDL statement seen, database-level statements (empty table) included. -#}
select
    source_format,
    source_database,
    source_table,
    ddl_type,
    ddl_sql as sql,
    source_table is null as is_database_level,
    ddl_key_columns,
    event_ts,
    source_log_file,
    source_log_pos,
    message_id,
    landing_seq,
    message_index,
    landed_at
from {{ ref('int_cdc__events') }}
where event_kind = 'ddl'
