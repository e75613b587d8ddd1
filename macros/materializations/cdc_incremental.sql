{% materialization cdc_incremental, adapter='spark', supported_languages=['sql'] %}
    {#-
        The project's incremental models on Spark (the staging folder and the landing-ordered
        intermediate models, cdc_materialized()): dbt-spark's `incremental`, made safe to kill and
        cheap when there is nothing to do.
        - Before it writes: files a killed first build left at the table's location are removed
          (cdc_clear_orphan_location); after a build of the model that did not finish, what that
          build may have written is dropped (cdc_clear_unfinished_build); the table is marked
          'running' with the watermark this build starts from (cdc_mark_build).
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
    {%- do cdc_mark_build(this, 'running', built_above=watermark) -%}
    {%- set result = dbt.materialization_incremental_spark() -%}
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
