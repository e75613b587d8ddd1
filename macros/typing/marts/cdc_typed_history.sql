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
