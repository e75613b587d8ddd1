{#-
    One row per DDL statement seen, database-level statements (empty table, CREATE/DROP DATABASE)
    included. Every statement has a ddl_type (the producer's, else classified from its text); the
    column changes (CREATE TABLE columns, ALTER ADD/MODIFY/CHANGE/DROP/RENAME COLUMN) and table
    renames it makes are parsed for cdc_columns and cdc_tables.
    Incremental, a partition per landing: a statement's row never changes, so a build parses only
    the new landings' DDL.
-#}
{{
    config(
        materialized=cdc_materialized('incremental'),
        incremental_strategy='insert_overwrite',
        partition_by=['landing_seq'],
    )
}}

select
    source_format,
    source_database,
    source_table,
    coalesce(ddl_type, {{ cdc_classify_ddl('ddl_sql') }}) as ddl_type,
    ddl_sql as sql,
    source_table is null
    or ddl_sql rlike '(?is)^\\s*(/\\*.*?\\*/\\s*)*(create|drop|alter)\\s+(database|schema)\\b' as is_database_level,
    ddl_key_columns,
    {{ cdc_ddl_column_changes('ddl_sql') }} as column_changes,
    {{ cdc_ddl_renamed_tables('ddl_sql') }} as renamed_tables,
    column_types,
    column_jdbc_types,
    event_ts,
    source_log_file,
    source_log_pos,
    message_id,
    message_index,
    element_index,
    landed_at,
    landing_seq
from {{ ref('int_cdc__events') }}
where
    event_kind = 'ddl'
    and landing_seq > {{ cdc_watermark() }}
