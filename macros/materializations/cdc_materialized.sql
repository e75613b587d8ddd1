{% macro cdc_materialized(kind) %}
    {#-
        The materialization of the project's own models of `kind` ('table', 'incremental' or
        'view'): dbt's own on Databricks (dbt-databricks writes Delta, whose commits are atomic),
        else the project's `cdc_<kind>` (macros/materializations/), which keeps readers of Parquet
        tables from seeing a missing or half-written table. dbt_project.yml sets the same on the
        project's folders; a model an analyst adds with dbt's `table`, `incremental` or `view`
        gets dbt's.
    -#}
    {{- return(kind if target.type == 'databricks' else 'cdc_' ~ kind) -}}
{% endmacro %}
