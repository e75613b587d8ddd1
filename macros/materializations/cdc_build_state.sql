{% macro cdc_mark_build(relation, state, built_above=none, built_through=none) %}
    {#-
        Called by the cdc_incremental materialization before ('running') and after ('complete') a
        model writes; the 'running' mark acts only when the model's table exists. It records in the
        table property `cdc_lake.build` whether the last build of the model finished. An
        insert_overwrite commits partition by partition (delete the old folder, move the new one
        in): a build killed in that moment can leave a partition missing or only some partitions
        new, and the next incremental build, reading its watermark from that table, would continue
        from a state that never existed. cdc_is_incremental() sees 'running' and rebuilds the model
        whole instead. The 'running' mark also records `cdc_lake.built_above`, the watermark this
        build starts from (0 when it rebuilds the model whole), so that the data tests can check
        the landings the build added (cdc_tested_watermark): `built_above`, the materialization's
        cdc_watermark(). The 'complete' mark records `cdc_lake.built_through`, the landings the
        build covered (cdc_input_landings_processed), when given: the next build's watermark
        (cdc_watermark) then skips the landings that gave the model no rows instead of reading
        them again (with the keys, DDL and seeds of that later build).
    -#}
    {%- if state == 'complete' -%}
        {%- do cdc_test_failure_hook(relation, 'after_write') -%}
    {%- endif -%}
    {%- if execute -%}
        {#- the model has just written its table when it is marked complete (on a first build,
            before dbt's relation cache knows the table) -#}
        {%- set existing = relation if state == 'complete' else adapter.get_relation(
            database=relation.database, schema=relation.schema, identifier=relation.identifier
        ) -%}
        {%- if existing is not none and existing.type != 'view' -%}
            {%- set properties = ["'cdc_lake.build' = '" ~ state ~ "'"] -%}
            {%- if state == 'running' -%}
                {%- do properties.append("'cdc_lake.built_above' = '" ~ built_above ~ "'") -%}
            {%- elif built_through is not none -%}
                {%- do properties.append("'cdc_lake.built_through' = '" ~ built_through ~ "'") -%}
            {%- endif -%}
            {%- do run_query(
                "alter table " ~ relation ~ " set tblproperties (" ~ properties | join(', ') ~ ")"
            ) -%}
        {%- endif -%}
    {%- endif -%}
    {%- if state == 'running' -%}
        {%- do cdc_test_failure_hook(relation, 'before_write') -%}
    {%- endif -%}
{% endmacro %}


{% macro cdc_test_failure_hook(relation, point) %}
    {#-
        A test hook, inert unless the environment variable CDC_LAKE_TEST_FAIL_AT lists (comma
        separated) `<model name>:<point>`: then the build of that model fails at `point`,
        'before_write' (after the table is marked running, before the model writes) or
        'after_write' (after it wrote, before it is marked complete), as a failed query or a lost
        connection there would.
        python/tests/test_failure_injection.py fails every model in turn and checks that the next
        build ends where an uninterrupted one does. Never set it outside tests.
    -#}
    {%- set fail_at = env_var('CDC_LAKE_TEST_FAIL_AT', '') if execute else '' -%}
    {%- set here = relation.identifier ~ ':' ~ point -%}
    {%- if fail_at and here in fail_at.split(',') -%}
        {%- do exceptions.raise_compiler_error(
            'CDC_LAKE_TEST_FAIL_AT: ' ~ here ~ ': failure injected by the test hook '
            ~ '(it is for tests only: unset CDC_LAKE_TEST_FAIL_AT)'
        ) -%}
    {%- endif -%}
{% endmacro %}


{% macro cdc_build_properties(relation) %}
    {#- The table properties of `relation`, names and values as strings. -#}
    {%- set properties = {} -%}
    {%- for row in run_query('show tblproperties ' ~ relation).rows -%}
        {%- do properties.update({row[0] | string: row[-1] | string}) -%}
    {%- endfor -%}
    {{- return(properties) -}}
{% endmacro %}


{% macro cdc_run_cache() %}
    {#-
        A dict for what a dbt run reads once and several of its nodes (or several steps of one node)
        ask again: kept in `graph`, the same dict for every node of a run, with the run's
        invocation_id, so that a later run in the same process (dbt invoked again with the same
        manifest) starts empty. Only for what cannot change while the run uses it.
    -#}
    {%- if graph.get('cdc_lake_run_cache', {}).get('invocation_id') != invocation_id -%}
        {%- do graph.update({'cdc_lake_run_cache': {'invocation_id': invocation_id}}) -%}
    {%- endif -%}
    {{- return(graph['cdc_lake_run_cache']) -}}
{% endmacro %}


{% macro cdc_properties_before_build() %}
    {#-
        The table properties of the model being built (cdc_build_properties of `this`) as they were
        before its build marked it: read once, by the first of its compilation (cdc_is_incremental,
        cdc_watermark) and its materialization to ask, and kept for the others (cdc_run_cache).
        Only for the steps before the model's 'running' mark (cdc_mark_build).
    -#}
    {%- set cache = cdc_run_cache() -%}
    {%- set key = 'properties before the build of ' ~ model.unique_id -%}
    {%- if key not in cache -%}
        {%- do cache.update({key: cdc_build_properties(this)}) -%}
    {%- endif -%}
    {{- return(cache[key]) -}}
{% endmacro %}


{% macro cdc_restart_watermark(relation, properties=none, node_config=none) %}
    {#-
        None when the last build of the incremental model `relation` finished (see cdc_mark_build).
        Else the watermark the next build starts from: the one the unfinished build started from
        (`cdc_lake.built_above`) when the model can resume, 0 (the model is rebuilt whole) when not.
        The unfinished build wrote only partitions above its watermark, so resuming from it
        (cdc_clear_unfinished_build drops those partitions first) builds what it would have built.
        Rebuilding the model whole would not: a key learned since its earlier landings were built
        (a DDL, a seed row) would key their quarantined rows while the models built on it, which
        continue from their own watermarks, never read them again.
        A model resumes when it is partitioned by landing_seq and its builds write no partition at
        or below their watermark; a model that does (int_cdc__conversion_checks checks old landings
        again) says `cdc_resumable=false`, and int_cdc__history_versions (partitioned by
        stored_in_landing, its current versions rewritten each build) is rebuilt whole.
        `properties`, when given, are the table's (cdc_build_properties), already read;
        `node_config`, when given, the model's configuration (default: the model being built's).
    -#}
    {%- set properties = cdc_build_properties(relation) if properties is none else properties -%}
    {%- if properties.get('cdc_lake.build') != 'running' -%}
        {{- return(none) -}}
    {%- endif -%}
    {%- set node_config = config if node_config is none else node_config -%}
    {%- set built_above = properties.get('cdc_lake.built_above', '0') -%}
    {%- if cdc_partition_columns(node_config.get('partition_by')) == ['landing_seq']
        and node_config.get('cdc_resumable', true) and built_above.isdigit() -%}
        {{- return(built_above | int) -}}
    {%- endif -%}
    {{- return(0) -}}
{% endmacro %}


{% macro cdc_clear_unfinished_build(relation, restart_from) %}
    {#-
        Called by the cdc_incremental materialization before it builds `relation`: after a build of
        the model that did not finish, drops what that build may have written, the partitions
        above the watermark the next build starts from (cdc_restart_watermark), or every partition
        when it rebuilds the model whole. An insert_overwrite replaces only the partitions it
        writes rows to, so a partition the new build writes no rows to would otherwise stay, e.g.
        closed versions of int_cdc__history_versions stored twice. `restart_from`: what
        cdc_restart_watermark answered for the table (none after a build that finished).
    -#}
    {%- if restart_from is none -%}
        {{- return(none) -}}
    {%- endif -%}
    {%- set column = cdc_partition_columns(config.get('partition_by'))[0] -%}
    {%- set above = restart_from if restart_from > 0 else -1 -%}
    {%- if config.get('file_format', 'parquet') != 'parquet' -%}
        {%- do run_query('delete from ' ~ relation ~ ' where ' ~ column ~ ' > ' ~ above) -%}
        {{- return(none) -}}
    {%- endif -%}
    {%- set dropped = [] -%}
    {%- for row in run_query('show partitions ' ~ relation).rows -%}
        {%- set name, value = ((row[0] | string) ~ '=').split('=')[:2] -%}
        {%- if name == column and value.isdigit() and value | int > above -%}
            {%- do dropped.append('partition (' ~ column ~ ' = ' ~ value ~ ')') -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if dropped -%}
        {%- do run_query('alter table ' ~ relation ~ ' drop if exists ' ~ dropped | join(', ')) -%}
    {%- endif -%}
{% endmacro %}


{% macro cdc_is_incremental() %}
    {#-
        is_incremental() (as cdc_is_incremental_run answers it), except after an unfinished build
        of a model that cannot resume from where that build started (cdc_restart_watermark): then
        the model is built from all its input as on a first build. Incremental models use this
        (and cdc_watermark(), which answers the watermark to resume from) instead of
        is_incremental().
    -#}
    {%- if not cdc_is_incremental_run() -%}
        {{- return(false) -}}
    {%- endif -%}
    {{- return(cdc_restart_watermark(this, cdc_properties_before_build()) != 0) -}}
{% endmacro %}


{% macro cdc_tested_watermark(relation) %}
    {#-
        The landings the data tests of a build need to check in the incremental model `relation`:
        those above the returned landing_seq, the watermark its last build started from
        (`cdc_lake.built_above`, see cdc_mark_build). 0, so every row is checked, on a first build,
        a --full-refresh, after a build that did not finish, or when the table does not say.
        A model the cdc_incremental materialization built in this run left that watermark in
        cdc_run_cache: its data tests take it from there instead of reading the table again.
    -#}
    {%- if not execute or flags.FULL_REFRESH or relation is none -%}
        {{- return(0) -}}
    {%- endif -%}
    {%- set cache = cdc_run_cache() -%}
    {%- if ('built above of ' ~ relation) in cache -%}
        {{- return(cache['built above of ' ~ relation]) -}}
    {%- endif -%}
    {%- set properties = cdc_build_properties(relation) -%}
    {%- set built_above = properties.get('cdc_lake.built_above', '0') -%}
    {%- if properties.get('cdc_lake.build') != 'complete' or not built_above.isdigit() -%}
        {{- return(0) -}}
    {%- endif -%}
    {{- return(built_above | int) -}}
{% endmacro %}


{% macro cdc_partition_columns(partition_by) %}
    {#- A model's `partition_by` configuration as a list of column names (empty when none). -#}
    {{- return([partition_by] if partition_by is string else (partition_by or []) | list) -}}
{% endmacro %}
