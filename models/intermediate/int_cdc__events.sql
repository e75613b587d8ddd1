{#-
    Every format's events in the staging contract, parsed once: the format staging models are
    ephemeral queries over the landing table, and this incremental table is where their rows are
    computed and stored, a partition per landing. A build's query holds the staging models of the
    formats its new landings hold (cdc_events_above) and Spark prunes each one's scan to those
    landings; every later model reads the rows from here, never parses a message again.
-#}
{{
    config(
        materialized=cdc_materialized('incremental'),
        incremental_strategy='insert_overwrite',
        partition_by=['landing_seq'],
    )
}}

select *
from {{ cdc_events_above(cdc_watermark()) }} as staged_events
