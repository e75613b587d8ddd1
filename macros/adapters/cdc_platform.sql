{% macro cdc_is_databricks() %}
    {#-
        Whether the target is Databricks: the dbt-databricks adapter, or dbt-spark connected to a
        Databricks cluster or SQL warehouse (its `http`/`odbc` methods, which set `cluster` or
        `endpoint`). Local Spark (`session`) and a Spark Thrift Server (`thrift`) are not.
    -#}
    {{ return(adapter.dispatch('cdc_is_databricks', 'cdc_lake')()) }}
{% endmacro %}

{% macro default__cdc_is_databricks() %}
    {{ return(false) }}
{% endmacro %}

{% macro databricks__cdc_is_databricks() %}
    {{ return(true) }}
{% endmacro %}

{% macro spark__cdc_is_databricks() %}
    {{ return(target.get('cluster') is not none or target.get('endpoint') is not none) }}
{% endmacro %}


{% macro cdc_file_format() %}
    {#-
        The table format of every model and seed: Delta on Databricks (ACID replace and MERGE, time
        travel), Parquet elsewhere. dbt_project.yml sets `+file_format` with the same rule (project
        configs cannot call macros); this macro is what SQL and tests use.
    -#}
    {{ return('delta' if cdc_is_databricks() else 'parquet') }}
{% endmacro %}
