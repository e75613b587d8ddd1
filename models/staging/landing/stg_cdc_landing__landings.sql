{#-
    The committed landings (a row in `landings` commits a landing), with the formats each holds:
    the readers of the staging models read only the staging models of the formats new landings
    hold (cdc_events_above).
-#}
{{ config(materialized=cdc_materialized('view')) }}

with

landings as (
    select * from {{ source('cdc_landing', 'landings') }}
)

select
    landing_seq,
    landing_id,
    landed_at,
    declared_format,
    messages,
    formats
from landings
