{% macro default__get_where_subquery(relation) -%}
    {#-
        dbt's `where` test config (the relation a generic test reads, filtered), plus the project's
        own: a test whose config has `meta: {cdc_new_landings_of: <incremental model>}` (or
        `meta: {cdc_new_landings: true}`, for the tested model itself) reads only the rows of the
        landings that model's last build added (landing_seq above cdc_tested_watermark), so a
        scheduled build tests what it wrote, not all history again. A first build, a
        --full-refresh or a build after an interrupted one tests every row.
    -#}
    {%- set conditions = [] -%}
    {%- set where = config.get('where') -%}
    {%- if where -%}
        {%- do conditions.append('(' ~ where ~ ')') -%}
    {%- endif -%}
    {%- set watermark = cdc_new_landings_watermark(relation) -%}
    {%- if watermark > 0 -%}
        {%- do conditions.append('landing_seq > ' ~ watermark) -%}
    {%- endif -%}
    {%- if conditions -%}
        {%- set filtered -%}
            (select * from {{ relation }} where {{ conditions | join(' and ') }}) dbt_subquery
        {%- endset -%}
        {{- return(filtered) -}}
    {%- endif -%}
    {{- return(relation) -}}
{%- endmacro %}


{% macro cdc_new_landings_watermark(relation) %}
    {#-
        For a data test with `meta: {cdc_new_landings_of: <model>}`: cdc_tested_watermark of that
        model (in the tested relation's schema); with `meta: {cdc_new_landings: true}`, of the
        tested relation; 0 for any other test.
    -#}
    {%- set meta = config.get('meta') or {} -%}
    {%- set source_model = meta.get('cdc_new_landings_of')
        or (relation.identifier if meta.get('cdc_new_landings') else none) -%}
    {%- if not source_model or not execute -%}
        {{- return(0) -}}
    {%- endif -%}
    {{- return(cdc_tested_watermark(adapter.get_relation(
        database=relation.database, schema=relation.schema, identifier=source_model
    ))) -}}
{% endmacro %}
