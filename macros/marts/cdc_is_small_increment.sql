{% macro cdc_is_small_increment(relation, watermark) %}
    {#-
        True when `relation` (partitioned by landing_seq) holds at most var
        cdc_broadcast_max_new_rows rows above `watermark`: the keys of the new landings are then
        few enough to broadcast to every task instead of shuffling the whole history to join them.
        Read at execution time (false while dbt parses, and on a first or full-refresh build).
    -#}
    {%- if not execute or watermark == 0 -%}
        {{- return(false) -}}
    {%- endif -%}
    {%- set result = run_query(
        'select count(*) from ' ~ relation ~ ' where landing_seq > ' ~ watermark
    ) -%}
    {{- return(result.columns[0].values()[0] | int <= var('cdc_broadcast_max_new_rows') | int) -}}
{% endmacro %}
