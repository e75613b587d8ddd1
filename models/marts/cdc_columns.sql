{#-
    One row per column of every source table, with its source, JDBC and Spark types and whether
    the table has it now: the catalogue int_cdc__columns builds (the conversion checks read it
    too). A view, so the catalogue is written once.
-#}
{{ config(materialized=cdc_materialized('view')) }}

with

table_columns as (
    select * from {{ ref('int_cdc__columns') }}
)

select
    source_database,
    source_table,
    column_name,
    column_name_variants,
    ordinal_position,
    source_type,
    source_types,
    jdbc_type,
    jdbc_type_name,
    is_jdbc_type_derived,
    spark_type,
    is_current,
    column_status,
    observed_in,
    first_seen_ts,
    last_seen_ts,
    dropped_ts
from table_columns
