{#-
    The messages `cdc-lake requeue` landed again, in committed requeue landings: each stands for
    its copy, the new message `requeued_as`.
-#}
{{ config(materialized=cdc_materialized('view')) }}

with

requeued as (
    select * from {{ source('cdc_landing', 'requeued') }}
),

committed_landings as (
    select landing_seq from {{ source('cdc_landing', 'landings') }}
)

select
    message_id,
    requeued_as,
    requeued_at,
    reason,
    landing_seq
from requeued
where landing_seq in (select committed_landings.landing_seq from committed_landings)
