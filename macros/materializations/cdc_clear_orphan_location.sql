{% macro cdc_clear_orphan_location(relation) %}
    {#-
        Called by the cdc_incremental materialization; acts only when the model's table does not
        exist.
        A build killed during the CREATE TABLE AS SELECT of an incremental model's first build (or
        full refresh) leaves files at the table's default location, and Spark then refuses to create
        the table there (LOCATION_ALREADY_EXISTS): every later build would fail. Those files belong
        to no table, so a managed helper table is pointed at that location and dropped, which
        deletes them. Parquet only (local Spark, Thrift Server): Delta tables are replaced in place.
        (The project's `cdc_table` materialization never reuses a location, so it needs no cleaning.)
        What it costs: nothing when dbt's relation cache has the table (every build after the
        first); else three statements (is the table there, where is its schema, is anything at its
        location: the project's JVM function cdc_path_exists), and the five of the clearing only
        when something is there, or when the location's file system cannot tell.
    -#}
    {%- if not execute or config.get('file_format', 'parquet') != 'parquet' -%}
        {{- return(none) -}}
    {%- endif -%}
    {%- set cached = adapter.get_relation(
        database=relation.database, schema=relation.schema, identifier=relation.identifier
    ) -%}
    {#- asked again, not taken from the cache: clearing the location of a table would delete it -#}
    {%- if cached is not none or run_query(
        "show tables in " ~ relation.schema ~ " like '" ~ relation.identifier ~ "'"
    ).rows | length > 0 -%}
        {{- return(none) -}}
    {%- endif -%}
    {%- set ns = namespace(location=none) -%}
    {%- for row in run_query('describe schema extended ' ~ relation.schema).rows -%}
        {%- if row[0] == 'Location' -%}
            {%- set ns.location = row[1] ~ '/' ~ relation.identifier -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if ns.location is none -%}
        {{- return(none) -}}
    {%- endif -%}
    {%- set found = run_query(
        'select ' ~ cdc_function('cdc_path_exists') ~ '(' ~ cdc_sql_string(ns.location) ~ ')'
    ).columns[0].values()[0] -%}
    {%- if found is sameas false -%}
        {{- return(none) -}}
    {%- endif -%}
    {%- set helper = relation.schema ~ '.' ~ relation.identifier ~ '__cdc_orphan' -%}
    {%- do run_query('drop table if exists ' ~ helper) -%}
    {%- do run_query('create table ' ~ helper ~ ' (x int) using parquet') -%}
    {%- do run_query("alter table " ~ helper ~ " set location " ~ cdc_sql_string(ns.location)) -%}
    {%- do run_query('drop table ' ~ helper) -%}
    {#- the helper's own folder is left empty: create and drop the helper once more -#}
    {%- do run_query('create table ' ~ helper ~ ' (x int) using parquet') -%}
    {%- do run_query('drop table ' ~ helper) -%}
{% endmacro %}
