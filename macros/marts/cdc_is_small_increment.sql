{% macro cdc_is_small_increment(relation, watermark, new_rows=none) %}
    {#-
        True when `relation` (partitioned by landing_seq) holds at most var
        cdc_broadcast_max_new_rows rows above `watermark`: the keys of the new landings are then
        few enough to broadcast to every task instead of shuffling the whole history to join them.
        Read at execution time (false while dbt parses, and on a first or full-refresh build).
        `new_rows` is that count when the caller has counted them already (cdc_row_counts).
    -#}
    {%- if not execute or watermark == 0 -%}
        {{- return(false) -}}
    {%- endif -%}
    {%- if new_rows is not none -%}
        {{- return(new_rows | int <= var('cdc_broadcast_max_new_rows') | int) -}}
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
    {%- set counts = cdc_row_counts(relation, where, {'rows': 'true'}) -%}
    {{- return(counts is not none and counts['rows'] <= limit | int) -}}
{% endmacro %}


{% macro cdc_row_counts(relation, where, conditions) %}
    {#-
        The rows of `relation` that satisfy `where` (a SQL condition), counted for each of
        `conditions` (a dict of name -> SQL condition) in one query: a dict of name -> count. Read
        at execution time; none while dbt parses, when the relation does not exist yet or when the
        query returns no row.
    -#}
    {%- if not execute or load_relation(relation) is none -%}
        {{- return(none) -}}
    {%- endif -%}
    {%- set names = conditions.keys() | list -%}
    {%- set counted -%}
        select
        {%- for name in names %}
            count_if({{ conditions[name] }}) as {{ adapter.quote(name) }}{{ ',' if not loop.last }}
        {%- endfor %}
        from {{ relation }}
        where {{ where }}
    {%- endset -%}
    {%- set rows = run_query(counted).rows -%}
    {%- if rows | length == 0 -%}
        {{- return(none) -}}
    {%- endif -%}
    {%- set ns = namespace(counts={}) -%}
    {%- for name in names -%}
        {%- do ns.counts.update({name: rows[0][loop.index0] | int}) -%}
    {%- endfor -%}
    {{- return(ns.counts) -}}
{% endmacro %}
