{% materialization cdc_table, adapter='spark', supported_languages=['sql'] %}
    {#-
        The project's tables on Spark (its intermediate and marts folders, cdc_materialized()).
        dbt-spark's `table` drops a Parquet table and then runs CREATE TABLE AS SELECT: readers
        find no table for the whole build, and a build killed during the CTAS leaves files at the
        table's location that make every later build fail (LOCATION_ALREADY_EXISTS). Here each
        build writes a new table `<model>__v<build time>`, then one metastore call points the view
        `<model>` at it: readers always see a complete table (the previous build until the swap),
        and a killed build leaves only a table nobody reads, under a name no later build uses.
        Builds older than the one readers saw before the swap are dropped. An existing view is
        repointed with ALTER VIEW (one metastore update): Spark runs CREATE OR REPLACE VIEW as a
        drop and a create, and a reader of a shared catalog (`cdc-lake catalog`) between the two
        finds no view. The test hook (cdc_test_failure_hook) can fail the build before or after
        it writes.
    -#}
    {%- set identifier = model['alias'] -%}
    {%- set build_identifier = identifier ~ '__v' ~ run_started_at.strftime('%Y%m%d%H%M%S%f') -%}
    {%- set grant_config = config.get('grants') -%}
    {%- set old_relation = adapter.get_relation(database=database, schema=schema, identifier=identifier) -%}
    {%- set build_relation = api.Relation.create(
        identifier=build_identifier, schema=schema, database=database, type='table'
    ) -%}
    {%- set target_relation = api.Relation.create(
        identifier=identifier, schema=schema, database=database, type='view'
    ) -%}

    {{ run_hooks(pre_hooks) }}
    {%- do cdc_test_failure_hook(target_relation, 'before_write') -%}

    {%- set previous_build = cdc_view_build(old_relation) -%}

    {%- call statement('main') -%}
        {{ create_table_as(False, build_relation, compiled_code) }}
    {%- endcall -%}

    {%- if old_relation is not none and old_relation.type != 'view' -%}
        {{ adapter.drop_relation(old_relation) }}
    {%- endif -%}
    {%- call statement('swap') -%}
        {%- if old_relation is not none and old_relation.type == 'view' %}
        alter view {{ target_relation }} as select * from {{ build_relation }}
        {%- else %}
        create view {{ target_relation }} as select * from {{ build_relation }}
        {%- endif -%}
    {%- endcall -%}

    {{ cdc_drop_old_builds(schema, identifier, [build_identifier, previous_build]) }}

    {% set should_revoke = should_revoke(old_relation, full_refresh_mode=True) %}
    {% do apply_grants(target_relation, grant_config, should_revoke) %}
    {% do persist_docs(target_relation, model) %}

    {%- do cdc_test_failure_hook(target_relation, 'after_write') -%}
    {{ run_hooks(post_hooks) }}

    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}


{% macro cdc_view_build(view_relation) %}
    {#- The build table (`<model>__v<digits>`) a model's view reads, or none. -#}
    {%- if view_relation is none or view_relation.type != 'view' -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set described = run_query('describe table extended ' ~ view_relation) -%}
    {%- for row in described.rows -%}
        {%- if row[0] == 'View Text' -%}
            {%- set found = modules.re.search(
                '\\b(' ~ view_relation.identifier ~ '__v[0-9]+)\\b', row[1] | string
            ) -%}
            {%- if found -%}
                {{ return(found.group(1)) }}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(none) }}
{% endmacro %}


{% macro cdc_drop_old_builds(schema_name, identifier, keep) %}
    {#- Drop the build tables of a model (`<identifier>__v<digits>`) except those named in `keep`. -#}
    {%- set pattern = '^' ~ identifier ~ '__v[0-9]+$' -%}
    {%- set tables = run_query("show tables in " ~ schema_name ~ " like '" ~ identifier ~ "__v*'") -%}
    {%- for row in tables.rows -%}
        {%- set name = row[1] | string -%}
        {%- if modules.re.match(pattern, name) and name not in keep and not row[2] -%}
            {%- call statement('drop_old_build_' ~ loop.index) -%}
                drop table if exists {{ schema_name }}.{{ name }}
            {%- endcall -%}
        {%- endif -%}
    {%- endfor -%}
{% endmacro %}
