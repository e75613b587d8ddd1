{% macro cdc_events_above(watermark) %}
    {#-
        The staged events of the landings above `watermark` (a subquery): what int_cdc__events
        adds in a build. It reads the staging models (ephemeral: dbt inlines each one referenced)
        of the formats those landings hold only, each filtered to the landings (Spark prunes the
        landing table's partitions to them), and stg_cdc_landing__unclaimed only when a landing
        holds a format no staging model reads: a model with nothing to read would add nothing but
        its planning (about half a second for ten idle formats) and its scan. Every staging model
        is referenced while dbt parses, so the lineage is the same on every build.
    -#}
    {%- set formats = cdc_formats_landed_above(watermark, ref('stg_cdc_landing__landings')) -%}
    {%- set has_unclaimed = formats is none or formats | reject('in', var('cdc_formats')) | list | length > 0 -%}
    (
    {%- for format_id in var('cdc_formats') if formats is none or format_id in formats %}
        select * from {{ ref('stg_' ~ format_id ~ '__changes') }} where landing_seq > {{ watermark }}
        union all
    {%- endfor %}
        {#- the last branch in any case, so that the query has the columns when nothing is new #}
        select * from {{ ref('stg_cdc_landing__unclaimed') }}
        where {{ 'landing_seq > ' ~ watermark if has_unclaimed else 'false' }}
    )
{% endmacro %}


{% macro cdc_formats_landed_above(watermark, committed_landings=none) %}
    {#-
        The formats the committed landings above `watermark` hold (landings.formats, of
        cdc_committed_landings), or none for "any format": while dbt parses, before anything was
        landed, or when such a landing does not record its formats (landed by an older cdc-lake).
        `committed_landings` is the relation to read them from: ref('stg_cdc_landing__landings')
        outside staging; by default the source.
    -#}
    {#- referenced before anything returns, so that dbt records the dependency when it parses -#}
    {%- set landings = cdc_committed_landings(committed_landings if committed_landings is not none
        else source('cdc_landing', 'landings')) -%}
    {%- if landings is none -%}
        {{- return(none) -}}
    {%- endif -%}
    {%- set ns = namespace(formats=[]) -%}
    {%- for landing_seq, formats in landings if landing_seq > watermark -%}
        {%- if formats is none -%}
            {{- return(none) -}}
        {%- endif -%}
        {%- set ns.formats = ns.formats + (formats | reject('in', ns.formats) | list) -%}
    {%- endfor -%}
    {{- return(ns.formats) -}}
{% endmacro %}


{% macro cdc_committed_landings(landings_relation) %}
    {#-
        The committed landings, as a list of [landing_seq, formats] (formats none for a landing of
        an older cdc-lake, which did not record them), read once per run (cdc_run_cache), or none
        while dbt parses, when `landings_relation` does not exist, and in a unit test (its
        landings are a fixture, which the query reads). One snapshot for the whole run: the
        formats int_cdc__events reads and the landings each staging model reads agree, even when
        a landing commits during the build (the next build reads it).
        `landings_relation` is the landings table or stg_cdc_landing__landings, which has its rows.
    -#}
    {#- a unit test's fixture is a CTE (no schema): its rows are read by the query itself -#}
    {%- if not execute or landings_relation.schema is none -%}
        {{- return(none) -}}
    {%- endif -%}
    {%- set cache = cdc_run_cache() -%}
    {%- if 'committed landings' not in cache -%}
        {%- set landings = none -%}
        {%- if load_relation(landings_relation) is not none -%}
            {%- set result = run_query(
                "select landing_seq, formats is null as unrecorded, concat_ws(',', formats) as formats from "
                ~ landings_relation ~ ' order by landing_seq'
            ) -%}
            {%- set landings = [] -%}
            {%- for landing_seq, unrecorded, formats in result.rows -%}
                {%- set landed_formats = none if unrecorded else (formats.split(',') if formats else []) -%}
                {%- do landings.append([landing_seq | int, landed_formats]) -%}
            {%- endfor -%}
        {%- endif -%}
        {%- do cache.update({'committed landings': landings}) -%}
    {%- endif -%}
    {{- return(cache['committed landings']) -}}
{% endmacro %}
