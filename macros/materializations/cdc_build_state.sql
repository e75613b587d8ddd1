{% macro cdc_mark_build(relation, state) %}
    {#-
        A pre-hook ('running') and post-hook ('complete') of every model; acts only for an
        incremental model whose table exists. It records in the table property
        `cdc_lake.build` whether the last build of the model finished. An insert_overwrite commits
        partition by partition (delete the old folder, move the new one in): a build killed in
        that moment can leave a partition missing or only some partitions new, and the next
        incremental build, reading its watermark from that table, would continue from a state
        that never existed. cdc_is_incremental() sees 'running' and rebuilds the model whole
        instead. The pre-hook also records `cdc_lake.built_above`, the watermark this build starts
        from (0 when it rebuilds the model whole), so that the data tests can check the landings
        the build added (cdc_tested_watermark).
    -#}
    {%- if state == 'complete' -%}
        {%- do cdc_test_failure_hook(relation, 'after_write') -%}
    {%- endif -%}
    {%- if execute and config.get('materialized') == 'incremental' -%}
        {%- set existing = adapter.get_relation(
            database=relation.database, schema=relation.schema, identifier=relation.identifier
        ) -%}
        {%- if existing is not none and existing.type != 'view' -%}
            {%- set properties = ["'cdc_lake.build' = '" ~ state ~ "'"] -%}
            {%- if state == 'running' -%}
                {%- do properties.append("'cdc_lake.built_above' = '" ~ cdc_watermark() ~ "'") -%}
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


{% macro cdc_build_interrupted(relation) %}
    {#- True when the last build of the incremental model `relation` did not finish (see cdc_mark_build). -#}
    {%- set result = run_query("show tblproperties " ~ relation ~ " ('cdc_lake.build')") -%}
    {%- for row in result.rows -%}
        {%- if row[-1] | string == 'running' -%}
            {{- return(true) -}}
        {%- endif -%}
    {%- endfor -%}
    {{- return(false) -}}
{% endmacro %}


{% macro cdc_is_incremental() %}
    {#-
        is_incremental(), except after an interrupted build of the model: then the model is built
        from all its input as on a first build, and insert_overwrite replaces every partition, so
        the result is what an uninterrupted build would have written. Incremental models use this
        (and cdc_watermark(), which calls it) instead of is_incremental().
    -#}
    {%- if not (execute and is_incremental()) -%}
        {{- return(false) -}}
    {%- endif -%}
    {{- return(not cdc_build_interrupted(this)) -}}
{% endmacro %}


{% macro cdc_tested_watermark(relation) %}
    {#-
        The landings the data tests of a build need to check in the incremental model `relation`:
        those above the returned landing_seq, the watermark its last build started from
        (`cdc_lake.built_above`, see cdc_mark_build). 0, so every row is checked, on a first build,
        a --full-refresh, after a build that did not finish, or when the table does not say.
    -#}
    {%- if not execute or flags.FULL_REFRESH or relation is none -%}
        {{- return(0) -}}
    {%- endif -%}
    {%- set properties = {} -%}
    {%- for row in run_query('show tblproperties ' ~ relation).rows -%}
        {%- do properties.update({row[0] | string: row[-1] | string}) -%}
    {%- endfor -%}
    {%- set built_above = properties.get('cdc_lake.built_above', '0') -%}
    {%- if properties.get('cdc_lake.build') != 'complete' or not built_above.isdigit() -%}
        {{- return(0) -}}
    {%- endif -%}
    {{- return(built_above | int) -}}
{% endmacro %}
