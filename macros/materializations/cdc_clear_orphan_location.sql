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
    -#}
    {%- if execute and config.get('file_format', 'parquet') == 'parquet' -%}
        {%- set found = run_query(
            "show tables in " ~ relation.schema ~ " like '" ~ relation.identifier ~ "'"
        ) -%}
        {%- if found.rows | length == 0 -%}
            {%- set ns = namespace(location=none) -%}
            {%- for row in run_query('describe schema extended ' ~ relation.schema).rows -%}
                {%- if row[0] == 'Location' -%}
                    {%- set ns.location = row[1] -%}
                {%- endif -%}
            {%- endfor -%}
            {%- set helper = relation.schema ~ '.' ~ relation.identifier ~ '__cdc_orphan' -%}
            {%- do run_query('drop table if exists ' ~ helper) -%}
            {%- do run_query('create table ' ~ helper ~ ' (x int) using parquet') -%}
            {%- do run_query(
                "alter table " ~ helper ~ " set location '" ~ ns.location ~ "/" ~ relation.identifier ~ "'"
            ) -%}
            {%- do run_query('drop table ' ~ helper) -%}
            {#- the helper's own folder is left empty: create and drop the helper once more -#}
            {%- do run_query('create table ' ~ helper ~ ' (x int) using parquet') -%}
            {%- do run_query('drop table ' ~ helper) -%}
        {%- endif -%}
    {%- endif -%}
{% endmacro %}
