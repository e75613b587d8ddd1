{% macro cdc_events_above(watermark) %}
    {#-
        The staged events of the landings above `watermark` (a subquery): what int_cdc__events
        adds in a build. It reads the staging models (ephemeral: dbt inlines each one referenced)
        of the formats those landings hold (and stg_cdc_landing__unclaimed) only, each filtered to
        the landings (Spark pushes the filter down to the landing table's partitions): a staging
        model has rows of the landings that hold its format, so the others would add nothing but
        their planning (about half a second for ten idle formats). Every staging model is
        referenced while dbt parses, so the lineage is the same on every build.
    -#}
    {%- set formats = cdc_formats_landed_above(watermark, ref('stg_cdc_landing__landings')) -%}
    (
    {%- for format_id in var('cdc_formats') if formats is none or format_id in formats %}
        select * from {{ ref('stg_' ~ format_id ~ '__changes') }} where landing_seq > {{ watermark }}
        union all
    {%- endfor %}
        select * from {{ ref('stg_cdc_landing__unclaimed') }} where landing_seq > {{ watermark }}
    )
{% endmacro %}


{% macro cdc_formats_landed_above(watermark, committed_landings=none) %}
    {#-
        The formats the committed landings above `watermark` hold (landings.formats), or none for
        "any format": while dbt parses, before anything was landed, or when such a landing does not
        record its formats (landed by an older cdc-lake). `committed_landings` is the relation to
        read them from: ref('stg_cdc_landing__landings') outside staging; by default the source.
    -#}
    {#- referenced before anything returns, so that dbt records the dependency when it parses -#}
    {%- set landings = committed_landings if committed_landings is not none
        else source('cdc_landing', 'landings') -%}
    {%- if not execute or load_relation(landings) is none -%}
        {{- return(none) -}}
    {%- endif -%}
    {%- set result = run_query(
        'select count_if(formats is null) as unrecorded, '
        ~ "concat_ws(',', array_distinct(flatten(collect_list(coalesce(formats, array()))))) as formats "
        ~ 'from ' ~ landings ~ ' where landing_seq > ' ~ watermark
    ) -%}
    {%- if result.rows | length == 0 or result.rows[0][0] | int > 0 -%}
        {{- return(none) -}}
    {%- endif -%}
    {{- return((result.rows[0][1] or '').split(',')) -}}
{% endmacro %}
