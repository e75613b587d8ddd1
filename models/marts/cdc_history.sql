{#-
    SCD type 2: one row per version of a source row (see int_cdc__history_versions, which stores
    them). A view: a key re-chained for a late-arriving event leaves its earlier versions in their
    partitions, and this view keeps only the versions of each key's newest chain, so an incremental
    build never rewrites old partitions. `dbt build --full-refresh` drops the superseded versions.
    The re-chained keys are few next to all versions: when they number at most var
    cdc_broadcast_max_new_rows (counted when dbt builds the view), the view broadcasts them to its
    anti join, so a reader does not shuffle every version to find the superseded ones.
-#}
{{ config(materialized=cdc_materialized('view')) }}

{%- set newest_chains_where = 'stored_in_landing = 0 and chain_start_landing > 0' -%}
{%- set broadcast_newest_chains = '/*+ broadcast(newest_chains) */' if cdc_row_count_at_most(
    ref('int_cdc__history_versions'), newest_chains_where, var('cdc_broadcast_max_new_rows')
) else '' %}

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
    where {{ newest_chains_where }}
),

keyed_versions as (
    select {{ broadcast_newest_chains }}
        {{ cdc_history_columns('versions') }}
    from versions
    left anti join newest_chains
        on
            {{ cdc_same_key('versions', 'newest_chains') }}
            and versions.chain_start_landing < newest_chains.chain_start_landing
),

row_image_versions as (
    select {{ cdc_history_columns() }}
    from {{ ref('int_cdc__row_image_versions') }}
)

select * from keyed_versions
union all
select * from row_image_versions
