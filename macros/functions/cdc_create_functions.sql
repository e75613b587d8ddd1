{% macro cdc_function(name) %}
    {#- The qualified name of one of the project's JVM functions (created by cdc_create_functions). -#}
    {{- target.schema ~ '.' ~ name -}}
{% endmacro %}


{% macro cdc_create_functions() %}
    {#-
        The on-run-start hook: create (or replace) the project's JVM functions as permanent functions
        of the target schema, each naming the jar that holds its class (USING JAR), so that every
        session of the build loads it, also each connection of a Spark Thrift Server. Nothing on
        Databricks, where the models use plain Spark SQL instead (see cdc_exact_json).
    -#}
    {%- if execute and not cdc_is_databricks() -%}
        {%- set jar = cdc_functions_jar() -%}
        {%- do run_query('create schema if not exists ' ~ target.schema) -%}
        {%- for name, class_name in cdc_jvm_functions().items() -%}
            {%- do run_query(
                'create or replace function ' ~ cdc_function(name) ~ " as '" ~ class_name
                ~ "' using jar '" ~ jar ~ "'"
            ) -%}
        {%- endfor -%}
    {%- endif -%}
{% endmacro %}


{% macro cdc_jvm_functions() %}
    {#- Function name: Java class (a Hive GenericUDF) of python/cdc_lake/jvm/src/. -#}
    {{ return({
        'cdc_exact_json': 'io.cdclake.spark.ExactJson',
        'cdc_json_error': 'io.cdclake.spark.JsonError',
        'cdc_chain_row_images': 'io.cdclake.spark.RowImageChains',
        'cdc_path_exists': 'io.cdclake.spark.PathExists',
    }) }}
{% endmacro %}


{% macro cdc_functions_jar() %}
    {#-
        Where the Spark session (or Thrift Server) has cdc-lake-functions.jar: the entry of its
        spark.jars that names it. The local target and `cdc-lake serve` set spark.jars; any other
        server must be started with the jar, which this error says.
    -#}
    {%- set configured = run_query('set spark.jars').columns[1].values()[0] -%}
    {%- for jar in configured.split(',') if jar.strip().endswith('/cdc-lake-functions.jar') -%}
        {{- return(jar.strip()) -}}
    {%- endfor -%}
    {{- exceptions.raise_compiler_error(
        'cdc-lake: the Spark session has no cdc-lake-functions.jar in spark.jars (it has: '
        ~ configured ~ '). Run scripts/setup.sh to build python/cdc_lake/jvm/cdc-lake-functions.jar, '
        ~ 'and start a Thrift Server with `cdc-lake serve` (or add the jar to its spark.jars).'
    ) -}}
{% endmacro %}
