{% materialization cdc_incremental, adapter='spark', supported_languages=['sql'] %}
    {#-
        The project's incremental models on Spark (the landing-ordered intermediate models,
        cdc_materialized()): dbt-spark's `incremental`, made safe to kill and cheap when there is
        nothing to do.
        - Before it writes: files a killed first build left at the table's location are removed
          (cdc_clear_orphan_location); after a build of the model that did not finish, what that
          build may have written is dropped (cdc_clear_unfinished_build); the table is marked
          'running' with the watermark this build starts from (cdc_mark_build).
        - An incremental run of an insert_overwrite model (every one of the project's) inserts the
          model's query straight into the table (cdc_insert_overwrite); dbt-spark would first create
          a temporary view of it, and Spark analyzes the query once for the view and once more for
          the insert (4-6 s for int_cdc__events).
        - After it wrote, the table is marked 'complete', with the landings its inputs had
          processed when it read them (cdc_input_landings_processed): its next watermark.
        - A run with nothing new (cdc_has_nothing_new: the inputs processed no landing since the
          model's last build, which finished) runs no statement at all: its query would write no
          row, and the table and its marks stay as they are (a build of the samples with nothing
          landed: 0.1-0.6 s per such model instead of 1-6 s).
    -#}
    {%- do cdc_clear_orphan_location(this) -%}
    {#- the table's properties and watermark, read once per run (cdc_run_cache): what the model's
        compilation read -#}
    {%- set incremental_run = cdc_is_incremental_run() -%}
    {%- set restart_from = cdc_restart_watermark(this, cdc_properties_before_build()) if incremental_run else none -%}
    {%- do cdc_clear_unfinished_build(this, restart_from) -%}
    {%- set watermark = cdc_watermark() -%}
    {#- what the inputs processed, read before the model reads them: what this build covers -#}
    {%- set built_through = cdc_input_landings_processed()
        if cdc_partition_columns(config.get('partition_by')) == ['landing_seq'] else none -%}
    {%- if incremental_run and cdc_has_nothing_new(watermark, built_through, restart_from) -%}
        {#- no statement, the table and its marks as they are; the data tests check nothing new -#}
        {%- do cdc_run_cache().update({'built above of ' ~ this: watermark}) -%}
        {%- do store_result('main', response='OK: nothing new above landing ' ~ watermark) -%}
        {{ return({'relations': [this]}) }}
    {%- endif -%}
    {%- do cdc_mark_build(this, 'running', built_above=watermark) -%}
    {%- if incremental_run and cdc_can_insert_overwrite() -%}
        {%- set result = cdc_insert_overwrite() -%}
    {%- else -%}
        {%- set result = dbt.materialization_incremental_spark() -%}
    {%- endif -%}
    {%- do cdc_mark_build(this, 'complete', built_through=built_through) -%}
    {#- the data tests of this run check the landings above the watermark this build started from
        (cdc_tested_watermark), now recorded as the table's `cdc_lake.built_above` -#}
    {%- do cdc_run_cache().update({'built above of ' ~ this: watermark}) -%}
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


{% macro cdc_has_nothing_new(watermark, built_through, restart_from) %}
    {#-
        True when an incremental run of the model being built has nothing to do: its last build
        finished (`restart_from`, cdc_restart_watermark, is none), its inputs have processed exactly the landings its table has (`built_through`,
        cdc_input_landings_processed, equals its `watermark`), and its builds write only the
        partitions of landings above the watermark (cdc_resumable, the default). Its query would
        read no new landing and write no row.
    -#}
    {{- return(
        built_through is not none
        and built_through == watermark
        and config.get('cdc_resumable', true)
        and restart_from is none
    ) -}}
{% endmacro %}


{% macro cdc_can_insert_overwrite() %}
    {#-
        True when an incremental run of the model being built is dbt-spark's insert_overwrite of
        partitions with nothing that needs the temporary view (on_schema_change 'ignore', a SQL
        model): what cdc_insert_overwrite does without the view.
    -#}
    {{- return(
        config.get('incremental_strategy') == 'insert_overwrite'
        and config.get('partition_by') is not none
        and (config.get('on_schema_change') or 'ignore') == 'ignore'
        and model.language == 'sql'
    ) -}}
{% endmacro %}


{% macro cdc_insert_overwrite() %}
    {#-
        dbt-spark's incremental insert_overwrite run (the same statements: dynamic partition
        overwrite, the hooks, dbt-spark's own insert of the table's columns in their order, grants
        and docs), with the model's query as the insert's source instead of a temporary view of it.
    -#}
    {%- call statement() -%}
        set spark.sql.sources.partitionOverwriteMode = DYNAMIC
    {%- endcall -%}
    {{ run_hooks(pre_hooks) }}
    {%- set new_rows = '(\n' ~ compiled_code ~ '\n) as new_rows' -%}
    {%- call statement('main') -%}
        {{ get_insert_overwrite_sql(new_rows, this, load_relation(this)) }}
    {%- endcall -%}
    {% do apply_grants(this, config.get('grants'), should_revoke(this, full_refresh_mode=false)) %}
    {% do persist_docs(this, model) %}
    {{ run_hooks(post_hooks) }}
    {{ return({'relations': [this]}) }}
{% endmacro %}
