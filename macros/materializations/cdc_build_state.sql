{% macro cdc_mark_build(relation, state) %}
    {#-
        A pre-hook ('running') and post-hook ('complete') of every model; acts only for an
        incremental model whose table exists. It records in the table property
        `cdc_lake.build` whether the last build of the model finished. An insert_overwrite commits
        partition by partition (delete the old folder, move the new one in): a build killed in
        that moment can leave a partition missing or only some partitions new, and the next
        incremental build, reading its watermark from that table, would continue from a state
        that never existed. cdc_is_incremental() sees 'running' and rebuilds the model whole
        instead.
    -#}
    {%- if execute and config.get('materialized') == 'incremental' -%}
        {%- set existing = adapter.get_relation(
            database=relation.database, schema=relation.schema, identifier=relation.identifier
        ) -%}
        {%- if existing is not none and existing.type != 'view' -%}
            {%- do run_query(
                "alter table " ~ relation ~ " set tblproperties ('cdc_lake.build' = '" ~ state ~ "')"
            ) -%}
        {%- endif -%}
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
