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
