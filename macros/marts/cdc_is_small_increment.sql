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
    {{- return(cdc_row_count_at_most(
        relation, 'landing_seq > ' ~ watermark, var('cdc_broadcast_max_new_rows')
    )) -}}
{% endmacro %}


{% macro cdc_row_count_at_most(relation, where, limit) %}
    {#-
        True when `relation` holds at most `limit` rows that satisfy `where` (a SQL condition). Read
        at execution time; false while dbt parses, when the relation does not exist yet (e.g. `dbt
        compile` on a fresh warehouse) or when the count returns no row.
    -#}
    {%- if not execute or load_relation(relation) is none -%}
        {{- return(false) -}}
    {%- endif -%}
    {%- set counts = run_query('select count(*) from ' ~ relation ~ ' where ' ~ where).columns[0].values() -%}
    {{- return(counts | length > 0 and counts[0] | int <= limit | int) -}}
{% endmacro %}
