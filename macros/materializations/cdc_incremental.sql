{% materialization cdc_incremental, adapter='spark', supported_languages=['sql'] %}
    {#-
        The project's incremental models on Spark (the staging folder and the landing-ordered
        intermediate models, cdc_materialized()): dbt-spark's `incremental`, made safe to kill and
        cheap when there is nothing to do.
        - Before it writes: files a killed first build left at the table's location are removed
          (cdc_clear_orphan_location); after a build of the model that did not finish, what that
          build may have written is dropped (cdc_clear_unfinished_build); the table is marked
          'running' with the watermark this build starts from (cdc_mark_build).
        - A staging model of a format that no new landing holds is not rebuilt: dbt-spark would
          still create its temporary view and run an insert of no rows, with a Spark job and a
          metastore refresh (about half a second per model; a lake that receives one or two of
          the formats has ten such models).
        - After it wrote, the table is marked 'complete'.
    -#}
    {%- do cdc_clear_orphan_location(this) -%}
    {#- the table's properties and watermark are read once here and passed to the steps -#}
    {%- set incremental_run = cdc_is_incremental_run() -%}
    {%- set properties = cdc_build_properties(this) if incremental_run else {} -%}
    {%- if incremental_run -%}
        {%- do cdc_clear_unfinished_build(this, properties) -%}
    {%- endif -%}
    {%- set watermark = cdc_watermark(properties=properties) -%}
    {%- set format_id = cdc_staged_format(model) -%}
    {%- set nothing_new = format_id is not none
        and incremental_run and not cdc_has_new_landings(format_id, watermark) -%}
    {%- do cdc_mark_build(this, 'running', built_above=watermark) -%}
    {%- if nothing_new -%}
        {{ run_hooks(pre_hooks) }}
        {%- do store_result(
            'main', response='SKIP: no new landing holds format ' ~ format_id
        ) -%}
        {{ run_hooks(post_hooks) }}
        {%- set result = {'relations': [this]} -%}
    {%- else -%}
        {%- set result = dbt.materialization_incremental_spark() -%}
    {%- endif -%}
    {%- do cdc_mark_build(this, 'complete') -%}
    {{ return(result) }}
{% endmaterialization %}


{% macro cdc_is_incremental_run() %}
    {#-
        dbt's is_incremental() for the model being built, whether it is dbt's `incremental` or the
        project's `cdc_incremental` (dbt's answers false for any other materialization): true when
        the model's table exists and this is not a full refresh.
    -#}
    {%- if not execute -%}
        {{- return(false) -}}
    {%- endif -%}
    {%- if model.config.materialized != 'cdc_incremental' -%}
        {{- return(is_incremental()) -}}
    {%- endif -%}
    {%- set relation = adapter.get_relation(this.database, this.schema, this.table) -%}
    {{- return(relation is not none and relation.type == 'table' and not should_full_refresh()) -}}
{% endmacro %}


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


{% macro cdc_has_new_landings(format_id, watermark) %}
    {#-
        True when a committed landing above `watermark` (the model's, cdc_watermark()) holds
        messages of `format_id` (or, landed by an older cdc-lake, does not say which formats it
        holds).
    -#}
    {%- set formats = cdc_formats_landed_above(watermark) -%}
    {{- return(formats is none or format_id in formats) -}}
{% endmacro %}
