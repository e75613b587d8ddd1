{% materialization incremental, adapter='spark', supported_languages=['sql', 'python'] %}
    {#-
        The project's `incremental` materialization: dbt-spark's, except that a staging model of a
        format no new landing holds is not rebuilt. dbt-spark would still create its temporary
        view and run an insert of no rows, with a Spark job and a metastore refresh (about half a
        second per model; a lake that receives one or two of the formats has ten such models).
        The hooks still run, so the table records this build (cdc_mark_build) as any other.
        After a build of the model that did not finish, what that build may have written is dropped
        first (cdc_clear_unfinished_build).
    -#}
    {%- if execute and is_incremental() -%}
        {%- do cdc_clear_unfinished_build(this) -%}
    {%- endif -%}
    {%- set format_id = cdc_staged_format(model) -%}
    {%- if format_id is not none and cdc_is_incremental() and not cdc_has_new_landings(format_id) -%}
        {{ run_hooks(pre_hooks) }}
        {%- do store_result(
            'main', response='SKIP: no new landing holds format ' ~ format_id
        ) -%}
        {{ run_hooks(post_hooks) }}
        {{ return({'relations': [this]}) }}
    {%- endif -%}
    {{ return(dbt.materialization_incremental_spark()) }}
{% endmaterialization %}


{% macro cdc_staged_format(model) %}
    {#-
        The format a staging model reads: `<format>` of a model named stg_<format>__changes whose
        format is in var('cdc_formats'); none for every other model.
    -#}
    {%- set found = modules.re.match('^stg_(.+)__changes$', model['name']) -%}
    {%- if found and found.group(1) in var('cdc_formats') -%}
        {{- return(found.group(1)) -}}
    {%- endif -%}
    {{- return(none) -}}
{% endmacro %}


{% macro cdc_has_new_landings(format_id) %}
    {#-
        True when a committed landing above the model's watermark holds messages of `format_id`
        (or, landed by an older cdc-lake, does not say which formats it holds).
    -#}
    {%- set formats = cdc_formats_landed_above(cdc_watermark()) -%}
    {{- return(formats is none or format_id in formats) -}}
{% endmacro %}
