{% macro cdc_small_build_settings() %}
    {#-
        The first on-run-start hook of the local target: how the embedded session runs this build's
        expressions. When the landings the build has not processed yet hold at most var
        cdc_interpreted_max_new_messages messages (cdc_unbuilt_messages), Spark evaluates them
        interpreted (whole-stage code generation off, expressions not compiled): over tens of
        thousands of rows, compiling the ~700 classes a build generates costs more than running them
        saves (benchmarks/small_build_modes.py). Any larger build runs with generated code (Spark's
        defaults again, also in a session that ran a small build before). A setting of
        CDC_LAKE_SPARK_CONF for either key wins: cdc_apply_spark_conf runs after this.
    -#}
    {#- (a hook's SQL is what the macro renders: nothing, the statements run here) -#}
    {%- if execute and target.name == 'local' -%}
        {%- set interpreted = cdc_unbuilt_messages() <= var('cdc_interpreted_max_new_messages') | int -%}
        {%- for key, interpreted_value, generated_value in [
            ('spark.sql.codegen.wholeStage', 'false', 'true'),
            ('spark.sql.codegen.factoryMode', 'NO_CODEGEN', 'FALLBACK'),
        ] -%}
            {%- do run_query('set ' ~ key ~ '=' ~ (interpreted_value if interpreted else generated_value)) -%}
        {%- endfor -%}
    {%- endif -%}
{% endmacro %}


{% macro cdc_unbuilt_messages() %}
    {#-
        How many committed messages lie above what int_cdc__events has processed
        (cdc_processed_through): the messages this build parses. All of them on a first build, a
        --full-refresh, or when the table's last build did not finish (a first build killed while
        it created the table leaves one whose partitions the metastore does not know; the
        materialization deals with it, this only needs a count). Not cached: int_cdc__events has not
        been built yet when this is asked.
    -#}
    {%- set landings = source('cdc_landing', 'landings') -%}
    {%- if load_relation(landings) is none -%}
        {{- return(0) -}}
    {%- endif -%}
    {%- set events = graph.nodes['model.cdc_lake.int_cdc__events'] -%}
    {%- set relation = adapter.get_relation(database=events.database, schema=events.schema, identifier=events.alias) -%}
    {%- set properties = {} if relation is none or flags.FULL_REFRESH else cdc_build_properties(relation) -%}
    {%- set processed = cdc_processed_through(relation, properties, events.config)
        if properties.get('cdc_lake.build') == 'complete' else 0 -%}
    {%- set result = run_query(
        'select coalesce(sum(messages), 0) from ' ~ landings ~ ' where landing_seq > ' ~ processed
    ) -%}
    {{- return(result.columns[0].values()[0] | int) -}}
{% endmacro %}
