{% macro cdc_sql_string(value) %}
    {#- A Spark SQL string literal of a Jinja value (null for none). -#}
    {%- if value is none -%}
        cast(null as string)
    {%- else -%}
        '{{ value | string | replace("\\", "\\\\") | replace("'", "\\'") }}'
    {%- endif -%}
{% endmacro %}


{% macro cdc_sql_identifier(name) %}
    {#- A Spark SQL identifier of a name from data: in backticks, each backtick in it doubled. -#}
    `{{ name | string | replace('`', '``') }}`
{% endmacro %}


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


{% macro cdc_column_text(image, column) %}
    {#- The text of one column in a row image, under any spelling the column was seen with. -#}
    {%- set lookups = [] -%}
    {%- for variant in (column.variants or [column.name]) -%}
        {%- do lookups.append('try_element_at(' ~ image ~ ', ' ~ cdc_sql_string(variant) ~ ')') -%}
    {%- endfor -%}
    {%- if lookups | length == 1 -%}
        {{ lookups[0] }}
    {%- else -%}
        coalesce({{ lookups | join(', ') }})
    {%- endif -%}
{% endmacro %}


{% macro cdc_typed_columns_select(columns, image, types, names=none) %}
    {#-
        One typed, named column per entry of `columns`, read from `image` with per-row `types`,
        named `names` (default: cdc_typed_column_names of the columns' names).
    -#}
    {%- set names = names if names is not none else cdc_typed_column_names(columns | map(attribute='name') | list, []).columns -%}
    {%- for column in columns %}
    {{ cdc_typed_value(
        cdc_column_text(image, column),
        column.spark_type,
        'coalesce(' ~ cdc_column_text(types, column) ~ ', ' ~ cdc_sql_string(column.source_type) ~ ')',
        column.get('source_types')
    ) }} as {{ cdc_sql_identifier(names[loop.index0]) }},
    {%- endfor %}
{% endmacro %}


{% macro cdc_typed_column_names(source_names, meta_names) %}
    {#-
        The column names of a typed model: {'columns': [a name per source column, in order],
        'meta': {bookkeeping name: its name}}, all different (case-insensitively). A source column
        keeps its name unless the name is empty or holds a character Parquet (Spark 3), Delta or
        Hive reject (space , ; { } ( ) newline tab carriage return =): each such character becomes
        _, an empty name becomes _cdc_unnamed. A bookkeeping column whose name a source column has
        is prefixed _cdc_. A name already taken gets _2, _3, ... cdc_columns keeps the source names.
    -#}
    {%- set unsafe = ' ,;{}()\n\t\r=' -%}
    {%- set taken = [] -%}
    {%- set wanted = [] -%}
    {%- for name in source_names -%}
        {%- set name = name | string if name is not none else '' -%}
        {%- set ns = namespace(safe=name) -%}
        {%- for character in unsafe -%}
            {%- set ns.safe = ns.safe | replace(character, '_') -%}
        {%- endfor -%}
        {%- do wanted.append(ns.safe if ns.safe != '' else '_cdc_unnamed') -%}
        {%- if ns.safe == name and name != '' and (name | lower) not in taken -%}
            {%- do taken.append(name | lower) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set kept = taken | list -%}
    {%- set meta = {} -%}
    {%- for name in meta_names -%}
        {%- set free = cdc_free_column_name(('_cdc_' ~ name) if name in kept else name, taken) -%}
        {%- do meta.update({name: free}) -%}
        {%- do taken.append(free | lower) -%}
    {%- endfor -%}
    {%- set columns = [] -%}
    {%- for name in source_names -%}
        {%- set name = name | string if name is not none else '' -%}
        {%- if wanted[loop.index0] == name and (name | lower) in kept and (name | lower) not in columns | map('lower') | list -%}
            {%- do columns.append(name) -%}
        {%- else -%}
            {%- set free = cdc_free_column_name(wanted[loop.index0], taken) -%}
            {%- do columns.append(free) -%}
            {%- do taken.append(free | lower) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return({'columns': columns, 'meta': meta}) }}
{% endmacro %}


{% macro cdc_free_column_name(name, taken) %}
    {#- `name`, or `name`_2, _3, ... : the first whose lowercase is not in `taken`. -#}
    {%- if (name | lower) not in taken -%}
        {{ return(name) }}
    {%- endif -%}
    {%- for suffix in range(2, taken | length + 3) -%}
        {%- if ((name ~ '_' ~ suffix) | lower) not in taken -%}
            {{ return(name ~ '_' ~ suffix) }}
        {%- endif -%}
    {%- endfor -%}
{% endmacro %}


{% macro cdc_typed_history(database, table) %}
    {#-
        Every version of the rows of one source table (SCD type 2, from cdc_history), one typed
        column per column the table ever had (cdc_columns: a column added later is null in older
        versions, a dropped column keeps its values in the versions that had it), plus
        primary_key, version_number, op, valid_from, valid_to, is_current, is_deleted.
        An analyst's model is one line: {{ "{{" }} cdc_typed_history('shop', 'products') {{ "}}" }}.
    -#}
    {%- set database = cdc_typed_table_database(database, table, 'cdc_typed_history') %}
    {%- set columns = cdc_typed_columns(database, table) %}
    {%- set names = cdc_typed_column_names(
        columns | map(attribute='name') | list,
        ['primary_key', 'version_number', 'op', 'valid_from', 'valid_to', 'is_current', 'is_deleted']
    ) %}
-- depends_on: {{ ref('cdc_columns') }}
with

history as (
    select *
    from {{ ref('cdc_history') }}
    where
        source_database <=> {{ cdc_sql_string(database) }}
        and source_table = {{ cdc_sql_string(table) }}
),

change_types as (
    select
        change_id,
        column_types
    from {{ ref('cdc_changes') }}
    where
        source_database <=> {{ cdc_sql_string(database) }}
        and source_table = {{ cdc_sql_string(table) }}
),

versions as (
    select
        history.*,
        change_types.column_types
    from history
    left join change_types on history.change_id = change_types.change_id
)

select
    primary_key as {{ cdc_sql_identifier(names.meta.primary_key) }},
    {{- cdc_typed_columns_select(columns, 'row', 'column_types', names.columns) }}
    version_number as {{ cdc_sql_identifier(names.meta.version_number) }},
    op as {{ cdc_sql_identifier(names.meta.op) }},
    valid_from as {{ cdc_sql_identifier(names.meta.valid_from) }},
    valid_to as {{ cdc_sql_identifier(names.meta.valid_to) }},
    is_current as {{ cdc_sql_identifier(names.meta.is_current) }},
    is_deleted as {{ cdc_sql_identifier(names.meta.is_deleted) }}
from versions
{% endmacro %}


{% macro cdc_typed_current(database, table) %}
    {#-
        The live rows of one source table, one typed column per column the table has now
        (cdc_columns.is_current), plus primary_key, last_changed_ts and last_op. A table that was
        dropped or renamed away has no live rows; rows last changed before a TRUNCATE or before the
        table was dropped and created again are gone; the rows of a table renamed into this one
        (RENAME TABLE old TO this) are carried over unless this table changed them since.
        An analyst's model is one line: {{ "{{" }} cdc_typed_current('shop', 'products') {{ "}}" }}.
    -#}
    {%- set database = cdc_typed_table_database(database, table, 'cdc_typed_current') %}
    {%- set columns = cdc_typed_columns(database, table) | selectattr('is_current') | list %}
    {%- set names = cdc_typed_column_names(
        columns | map(attribute='name') | list, ['primary_key', 'last_changed_ts', 'last_op']
    ) %}
-- depends_on: {{ ref('cdc_columns') }}
with

tables as (
    select * from {{ ref('cdc_tables') }}
),

this_table as (
    select *
    from tables
    where
        source_database <=> {{ cdc_sql_string(database) }}
        and source_table = {{ cdc_sql_string(table) }}
),

renamed_into_this as (
    select
        source_database,
        source_table,
        status_position as renamed_position,
        carried_rows_since_position
    from tables
    where
        table_status = 'renamed'
        and renamed_to_database <=> {{ cdc_sql_string(database) }}
        and renamed_to_table = {{ cdc_sql_string(table) }}
),

table_names as (
    select source_database, source_table from this_table
    union all
    select source_database, source_table from renamed_into_this
),

versions as (
    select
        history.*,
        {{ cdc_event_position('history') }} as version_position
    from {{ ref('cdc_history') }} as history
    left semi join table_names
        on
            history.source_database <=> table_names.source_database
            and history.source_table = table_names.source_table
),

own_live_rows as (
    select versions.*
    from versions
    inner join this_table
        on
            versions.source_database <=> this_table.source_database
            and versions.source_table = this_table.source_table
    where
        versions.is_current
        and not versions.is_deleted
        and this_table.is_current
        and (this_table.rows_cleared_position is null or versions.version_position > this_table.rows_cleared_position)
),

keys_changed_since_rename as (
    select distinct
        versions.primary_key,
        renamed_into_this.source_database as renamed_from_database,
        renamed_into_this.source_table as renamed_from_table
    from versions
    cross join renamed_into_this
    where
        versions.source_database <=> {{ cdc_sql_string(database) }}
        and versions.source_table = {{ cdc_sql_string(table) }}
        and versions.version_position > renamed_into_this.renamed_position
),

carried_live_rows as (
    select versions.*
    from versions
    inner join renamed_into_this
        on
            versions.source_database <=> renamed_into_this.source_database
            and versions.source_table = renamed_into_this.source_table
    cross join this_table
    left anti join keys_changed_since_rename
        on
            versions.primary_key = keys_changed_since_rename.primary_key
            and versions.source_database <=> keys_changed_since_rename.renamed_from_database
            and versions.source_table = keys_changed_since_rename.renamed_from_table
    where
        versions.is_current
        and not versions.is_deleted
        and this_table.is_current
        and versions.version_position < renamed_into_this.renamed_position
        and (
            renamed_into_this.carried_rows_since_position is null
            or versions.version_position > renamed_into_this.carried_rows_since_position
        )
        and (
            this_table.rows_cleared_position is null
            or renamed_into_this.renamed_position > this_table.rows_cleared_position
        )
),

live_rows as (
    select * from own_live_rows
    union all
    select * from carried_live_rows
),

change_types as (
    select
        changes.change_id,
        changes.column_types
    from {{ ref('cdc_changes') }} as changes
    left semi join table_names
        on
            changes.source_database <=> table_names.source_database
            and changes.source_table = table_names.source_table
),

rows_with_types as (
    select
        live_rows.*,
        change_types.column_types
    from live_rows
    left join change_types on live_rows.change_id = change_types.change_id
)

select
    primary_key as {{ cdc_sql_identifier(names.meta.primary_key) }},
    {{- cdc_typed_columns_select(columns, 'row', 'column_types', names.columns) }}
    valid_from as {{ cdc_sql_identifier(names.meta.last_changed_ts) }},
    op as {{ cdc_sql_identifier(names.meta.last_op) }}
from rows_with_types
{% endmacro %}
