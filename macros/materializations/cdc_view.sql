{% materialization cdc_view, adapter='spark', supported_languages=['sql'] %}
    {#-
        The project's views on Spark (cdc_materialized('view')). dbt's `view` runs CREATE OR
        REPLACE VIEW, which Spark runs as a drop and a create in the metastore, so a reader of a
        shared catalog (`cdc-lake catalog`) between the two finds no view (e.g. no cdc_history).
        Here an existing view is changed with ALTER VIEW (one metastore update); a table in its
        place is dropped first, as dbt's default does.
    -#}
    {%- set identifier = model['alias'] -%}
    {%- set grant_config = config.get('grants') -%}
    {%- set old_relation = adapter.get_relation(database=database, schema=schema, identifier=identifier) -%}
    {%- set target_relation = api.Relation.create(
        identifier=identifier, schema=schema, database=database, type='view'
    ) -%}

    {{ run_hooks(pre_hooks) }}
    {%- do cdc_test_failure_hook(target_relation, 'before_write') -%}

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

    {%- do cdc_test_failure_hook(target_relation, 'after_write') -%}
    {{ run_hooks(post_hooks) }}

    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
