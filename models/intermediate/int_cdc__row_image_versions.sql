{#-
    The versions (SCD type 2) of the rows of tables keyed by row image, with the columns of
    int_cdc__history_versions: one per chained change of int_cdc__row_image_chains (a delete
    leaves a version with is_deleted), numbered in the row's order; valid_from is the change's
    event time (never before the previous version's), valid_to the next version's valid_from.
    A table, rebuilt from all chained changes each build like the chains; cdc_history and
    cdc_current add these versions to the keyed tables'.
-#}
{{ config(materialized=cdc_materialized('table')) }}

{%- set row_columns = 'source_database, source_table, primary_key' %}

with

chained_changes as (
    select *
    from {{ ref('int_cdc__row_image_chains') }}
    where chain_problem is null
),

version_events as (
    {{ cdc_version_events('chained_changes') }}
),

numbered as (
    select
        *,
        row_number() over (partition by {{ row_columns }} order by {{ cdc_version_order() }}) as version_number,
        max(coalesce(event_ts, landed_at)) over (
            partition by {{ row_columns }}
            order by {{ cdc_version_order() }}
            rows between unbounded preceding and current row
        ) as valid_from
    from version_events
),

closed as (
    select
        *,
        lead(valid_from) over (partition by {{ row_columns }} order by version_number) as valid_to,
        coalesce(
            lead(landing_seq) over (partition by {{ row_columns }} order by version_number),
            0
        ) as closed_in_landing
    from numbered
),

versions as (
    select
        *,
        valid_to is null as is_current
    from closed
)

select {{ cdc_history_columns() }}
from versions
