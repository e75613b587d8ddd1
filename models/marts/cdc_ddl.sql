{#-
    One row per DDL statement seen, with its type and the column changes and table renames it
    makes: the statements int_cdc__ddl stores (and the column catalogue is built from). A view,
    so the statements are written once.
-#}
{{ config(materialized=cdc_materialized('view')) }}

with

statements as (
    select * from {{ ref('int_cdc__ddl') }}
)

select
    source_format,
    source_database,
    source_table,
    ddl_type,
    sql,
    is_database_level,
    ddl_key_columns,
    column_changes,
    renamed_tables,
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
from statements
