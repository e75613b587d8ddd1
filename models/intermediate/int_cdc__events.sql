{{ config(materialized=cdc_materialized('view')) }}

{#- Every staging model's events, one contract: the formats listed in var('cdc_formats'). -#}
{%- for format_id in var('cdc_formats') %}
select * from {{ ref('stg_' ~ format_id ~ '__changes') }}
union all
{%- endfor %}
select * from {{ ref('stg_cdc_landing__unclaimed') }}
