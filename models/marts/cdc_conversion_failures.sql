{#-
    One row per value that does not convert to its column's Spark type (cdc_columns.spark_type), for
    every version of every row of every table: the typed tables of cdc_typed_current /
    cdc_typed_history hold null there, and this model says which value it was (table, column, key,
    raw text, target type). The checks are int_cdc__conversion_checks (incremental, the same
    conversion as the typed tables); this view adds each version's number and valid_from from
    cdc_history, which can change when a late-arriving event re-chains a key.
-#}
{{ config(materialized=cdc_materialized('view')) }}

with

failures as (
    select *
    from {{ ref('int_cdc__conversion_checks') }}
    where record_kind = 'failure'
),

versions as (
    select
        change_id,
        split_order,
        version_number,
        valid_from
    from {{ ref('cdc_history') }}
)

select
    failures.source_database,
    failures.source_table,
    failures.column_name,
    failures.primary_key,
    failures.raw_text,
    failures.source_type,
    failures.target_type,
    failures.reason,
    versions.valid_from,
    versions.version_number,
    failures.change_id,
    failures.source_format
from failures
inner join versions
    on
        failures.change_id = versions.change_id
        and failures.split_order = versions.split_order
