{% materialization view, adapter='spark', supported_languages=['sql'] %}
    {#-
        The project's `view` materialization (it replaces dbt's default, which Spark runs as
        CREATE OR REPLACE VIEW: a drop and a create in the metastore, so a reader of a shared
        catalog (`cdc-lake catalog`) between the two finds no view, e.g. no cdc_history). An
        existing view is changed with ALTER VIEW (one metastore update); a table in its place is
        dropped first, as dbt's default does.
    -#}
    {%- set identifier = model['alias'] -%}
    {%- set grant_config = config.get('grants') -%}
    {%- set old_relation = adapter.get_relation(database=database, schema=schema, identifier=identifier) -%}
    {%- set target_relation = api.Relation.create(
        identifier=identifier, schema=schema, database=database, type='view'
    ) -%}

    {{ run_hooks(pre_hooks) }}

    {%- if old_relation is not none and old_relation.type != 'view' -%}
        {{ adapter.drop_relation(old_relation) }}
    {%- endif -%}
    {%- call statement('main') -%}
        {%- if old_relation is not none and old_relation.type == 'view' %}
        alter view {{ target_relation }} as {{ compiled_code }}
        {%- else %}
        create view {{ target_relation }} as {{ compiled_code }}
        {%- endif -%}
    {%- endcall -%}

    {% set should_revoke = should_revoke(old_relation, full_refresh_mode=True) %}
    {% do apply_grants(target_relation, grant_config, should_revoke) %}
    {% do persist_docs(target_relation, model) %}

    {{ run_hooks(post_hooks) }}

    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
