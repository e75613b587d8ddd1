{#-
    SCD type 2: one row per version of a source row (see int_cdc__history_versions, which stores
    them). A view: a key re-chained for a late-arriving event leaves its earlier versions in their
    partitions, and this view keeps only the versions of each key's newest chain, so an incremental
    build never rewrites old partitions. `dbt build --full-refresh` drops the superseded versions.
-#}
{{ config(materialized='view') }}

with

versions as (
    select * from {{ ref('int_cdc__history_versions') }}
),

newest_chains as (
    -- the chain a re-chained key uses now: its current version's (partition 0, never superseded)
    select
        source_database,
        source_table,
        primary_key,
        chain_start_landing
    from versions
    where stored_in_landing = 0 and chain_start_landing > 0
)

select
    versions.source_database,
    versions.source_table,
    versions.primary_key,
    versions.version_number,
    versions.row,
    versions.op,
    versions.valid_from,
    versions.valid_to,
    versions.is_current,
    versions.is_deleted,
    versions.source_format,
    versions.change_id,
    versions.event_ts,
    versions.source_log_file,
    versions.source_log_pos,
    versions.landing_seq,
    versions.message_index,
    versions.element_index,
    versions.row_index,
    versions.split_order,
    versions.message_id,
    versions.landed_at,
    versions.closed_in_landing
from versions
left anti join newest_chains
    on
        {{ cdc_same_key('versions', 'newest_chains') }}
        and versions.chain_start_landing < newest_chains.chain_start_landing
