{% macro cdc_apply_spark_conf() %}
    {#-
        The on-run-start hook: apply CDC_LAKE_SPARK_CONF (`key=value,key=value`, the extra Spark
        settings of the cdc-lake commands) to the embedded session of the local target, so a
        `dbt build` runs with the same settings as `cdc-lake land`. Only SQL settings (spark.sql.*)
        can change in a running session; any other key stops the build with an error that says
        where to set it.
    -#}
    {%- if execute and target.name == 'local' -%}
        {%- for item in env_var('CDC_LAKE_SPARK_CONF', '').split(',') if '=' in item -%}
            {%- set key, value = item.split('=', 1) | map('trim') | list -%}
            {%- if not key.startswith('spark.sql.') -%}
                {{- exceptions.raise_compiler_error(
                    'cdc-lake: CDC_LAKE_SPARK_CONF sets ' ~ key ~ ', which a running Spark session cannot '
                    ~ 'change; dbt applies only spark.sql.* settings from it. Put ' ~ key
                    ~ ' under server_side_parameters of the local target in profiles/profiles.yml.'
                ) -}}
            {%- endif -%}
            {%- do run_query('set ' ~ key ~ '=' ~ value) -%}
        {%- endfor -%}
    {%- endif -%}
{% endmacro %}
