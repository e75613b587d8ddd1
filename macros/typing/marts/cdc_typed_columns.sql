{% macro cdc_typed_columns(database, table) %}
    {#-
        The columns of one source table, read from cdc_columns at execution time (an empty list
        while dbt parses, or when cdc_columns does not exist yet, e.g. `dbt compile` on a fresh
        warehouse): a list of {name, variants, spark_type, source_type, is_current} in
        ordinal_position order, with source_types (every source type the column had).
    -#}
    {%- if not execute -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set relation = load_relation(ref('cdc_columns')) -%}
    {%- if relation is none -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set query -%}
        select
            column_name,
            to_json(column_name_variants) as column_name_variants,
            spark_type,
            source_type,
            is_current,
            to_json(source_types) as source_types
        from {{ relation }}
        where
            source_database <=> {{ cdc_sql_string(database) }}
            and source_table = {{ cdc_sql_string(table) }}
        order by ordinal_position
    {%- endset -%}
    {%- set columns = [] -%}
    {%- for row in run_query(query).rows -%}
        {%- do columns.append({
            'name': row[0],
            'variants': fromjson(row[1]),
            'spark_type': row[2],
            'source_type': row[3],
            'is_current': row[4] in (true, 'true', 'True', 1),
            'source_types': fromjson(row[5]) if row[5] else [],
        }) -%}
    {%- endfor -%}
    {{ return(columns) }}
{% endmacro %}


{% macro cdc_typed_table_database(database, table, macro_name) %}
    {#-
        The source_database a typed macro reads for (database, table), checked against cdc_columns
        at execution time: the name as given when cdc_columns has the table; else the one
        `<tenant>.<database>` that has it (OMS names a database with its tenant, `obt1.mydb`);
        else the build fails naming the closest tables (same table name first, then tables of the
        same database, then by edit distance). While dbt parses, and when cdc_columns does not
        exist yet, the name as given.
    -#}
    {%- if not execute -%}
        {{ return(database) }}
    {%- endif -%}
    {%- set relation = load_relation(ref('cdc_columns')) -%}
    {%- if relation is none -%}
        {{ return(database) }}
    {%- endif -%}
    {%- set wanted = (database ~ '.' if database is not none else '') ~ table -%}
    {%- set query -%}
        with

        tables as (
            select distinct
                source_database,
                source_table
            from {{ relation }}
        ),

        matches as (
            select
                source_database,
                source_table,
                coalesce(source_database <=> {{ cdc_sql_string(database) }}, false) as is_named_database,
                {% if database is not none -%}
                coalesce(
                    right(source_database, {{ (database | string | length) + 1 }}) = {{ cdc_sql_string('.' ~ database) }},
                    false
                )
                {%- else -%}
                false
                {%- endif %} as is_tenant_database,
                coalesce(source_table = {{ cdc_sql_string(table) }}, false) as is_same_table,
                levenshtein(concat_ws('.', source_database, source_table), {{ cdc_sql_string(wanted) }}) as distance
            from tables
        )

        select
            source_database,
            source_table,
            is_named_database and is_same_table as is_exact,
            is_tenant_database and is_same_table as is_tenant_match
        from matches
        order by
            is_exact desc, is_tenant_match desc, is_same_table desc,
            (is_named_database or is_tenant_database) desc, distance, source_database, source_table
        limit 5
    {%- endset -%}
    {%- set rows = run_query(query).rows -%}
    {%- set tenant_matches = [] -%}
    {%- for row in rows if row[3] in (true, 'true', 'True', 1) -%}
        {%- do tenant_matches.append(row) -%}
    {%- endfor -%}
    {%- if rows | length > 0 and rows[0][2] in (true, 'true', 'True', 1) -%}
        {{ return(database) }}
    {%- elif tenant_matches | length == 1 -%}
        {{ return(tenant_matches[0][0]) }}
    {%- endif -%}
    {%- set names = [] -%}
    {%- for row in (tenant_matches if tenant_matches else rows) -%}
        {%- do names.append("(" ~ cdc_sql_string(row[0]) ~ ", " ~ cdc_sql_string(row[1]) ~ ")") -%}
    {%- endfor -%}
    {%- set call = macro_name ~ "(" ~ cdc_sql_string(database) ~ ", " ~ cdc_sql_string(table) ~ ")" -%}
    {%- if tenant_matches -%}
        {{ exceptions.raise_compiler_error(
            call ~ ": the database name is ambiguous, tables of several tenants match: " ~ names | join(', ')
            ~ ". Name the database with its tenant."
        ) }}
    {%- elif names -%}
        {{ exceptions.raise_compiler_error(
            call ~ ": the lake has no such table (cdc_columns has no column of it). Closest tables: "
            ~ names | join(', ') ~ ". Name one as cdc_tables spells it."
        ) }}
    {%- else -%}
        {{ exceptions.raise_compiler_error(
            call ~ ": the lake has no such table, nor any other yet (cdc_columns is empty). Land and build its messages first."
        ) }}
    {%- endif -%}
{% endmacro %}


{% macro cdc_spark_types_in_use() %}
    {#-
        The distinct spark_type values of int_cdc__columns (the rows of cdc_columns), read at
        execution time (empty while parsing).
    -#}
    {%- if not execute -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set relation = load_relation(ref('int_cdc__columns')) -%}
    {%- if relation is none -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set result = run_query('select distinct spark_type from ' ~ relation ~ ' order by spark_type') -%}
    {{ return(result.columns[0].values() | list) }}
{% endmacro %}
