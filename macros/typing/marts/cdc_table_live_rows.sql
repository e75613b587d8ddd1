{% macro cdc_table_live_rows_sql() %}
    {#-
        The live rows of every live table under the table's current name, with the column types of
        the change that wrote each (a select over cdc_tables, cdc_history and cdc_changes): the
        table's own current rows changed after its rows were last cleared (ERASE, TRUNCATE), and
        the current rows of a table renamed into it (RENAME TABLE old TO this) that this table has
        not changed since. What cdc_typed_current types; the model cdc_table_live_rows stores it.
    -#}
with

tables as (
    select * from {{ ref('cdc_tables') }}
),

live_tables as (
    select
        source_database,
        source_table,
        rows_cleared_position
    from tables
    where is_current
),

renames_into_live_tables as (
    select
        renamed.source_database as renamed_from_database,
        renamed.source_table as renamed_from_table,
        renamed.status_position as renamed_position,
        renamed.carried_rows_since_position,
        live_tables.source_database,
        live_tables.source_table,
        live_tables.rows_cleared_position
    from tables as renamed
    inner join live_tables
        on
            renamed.renamed_to_database <=> live_tables.source_database
            and renamed.renamed_to_table = live_tables.source_table
    where renamed.table_status = 'renamed'
),

versions as (
    select
        history.*,
        {{ cdc_event_position('history') }} as version_position
    from {{ ref('cdc_history') }} as history
),

own_live_rows as (
    select
        live_tables.source_database as table_database,
        live_tables.source_table as table_name,
        versions.*
    from versions
    inner join live_tables
        on
            versions.source_database <=> live_tables.source_database
            and versions.source_table = live_tables.source_table
    where
        versions.is_current
        and not versions.is_deleted
        and (live_tables.rows_cleared_position is null or versions.version_position > live_tables.rows_cleared_position)
),

keys_changed_since_rename as (
    select distinct
        versions.primary_key,
        renames_into_live_tables.renamed_from_database,
        renames_into_live_tables.renamed_from_table
    from versions
    inner join renames_into_live_tables
        on
            versions.source_database <=> renames_into_live_tables.source_database
            and versions.source_table = renames_into_live_tables.source_table
    where versions.version_position > renames_into_live_tables.renamed_position
),

carried_live_rows as (
    select
        renames_into_live_tables.source_database as table_database,
        renames_into_live_tables.source_table as table_name,
        versions.*
    from versions
    inner join renames_into_live_tables
        on
            versions.source_database <=> renames_into_live_tables.renamed_from_database
            and versions.source_table = renames_into_live_tables.renamed_from_table
    left anti join keys_changed_since_rename
        on
            versions.primary_key = keys_changed_since_rename.primary_key
            and versions.source_database <=> keys_changed_since_rename.renamed_from_database
            and versions.source_table = keys_changed_since_rename.renamed_from_table
    where
        versions.is_current
        and not versions.is_deleted
        and versions.version_position < renames_into_live_tables.renamed_position
        and (
            renames_into_live_tables.carried_rows_since_position is null
            or versions.version_position > renames_into_live_tables.carried_rows_since_position
        )
        and (
            renames_into_live_tables.rows_cleared_position is null
            or renames_into_live_tables.renamed_position > renames_into_live_tables.rows_cleared_position
        )
),

live_rows as (
    select * from own_live_rows
    union all
    select * from carried_live_rows
),

change_types as (
    select
        change_id,
        column_types
    from {{ ref('cdc_changes') }}
)

select
    live_rows.table_database as source_database,
    live_rows.table_name as source_table,
    live_rows.primary_key,
    live_rows.row,
    change_types.column_types,
    live_rows.valid_from as last_changed_ts,
    live_rows.op as last_op
from live_rows
left join change_types on live_rows.change_id = change_types.change_id
{% endmacro %}


{% macro cdc_is_read_by_a_model(unique_id) %}
    {#-
        True when a model of the project (an enabled one: dbt's graph holds no other) reads the
        node `unique_id` with ref(); true while dbt parses.
    -#}
    {%- if not execute -%}
        {{ return(true) }}
    {%- endif -%}
    {%- for node in graph.nodes.values() if node.resource_type == 'model' and unique_id in node.depends_on.nodes -%}
        {{ return(true) }}
    {%- endfor -%}
    {{ return(false) }}
{% endmacro %}


{% macro cdc_has_rows(relation) %}
    {#-
        True when `relation` holds a row (run_query when the model runs), or when that cannot be
        asked: while dbt parses, and in a unit test (its inputs are fixtures, CTEs without a schema).
        False when the relation does not exist.
    -#}
    {%- if not execute or relation.schema is none -%}
        {{ return(true) }}
    {%- endif -%}
    {%- if load_relation(relation) is none -%}
        {{ return(false) }}
    {%- endif -%}
    {{ return(run_query('select 1 from ' ~ relation ~ ' limit 1').rows | length > 0) }}
{% endmacro %}

