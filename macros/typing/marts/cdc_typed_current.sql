{% macro cdc_typed_current(database, table) %}
    {#-
        The live rows of one source table, one typed column per column the table has now
        (cdc_columns.is_current), plus primary_key, last_changed_ts and last_op. A table that was
        dropped or renamed away has no live rows; rows last changed before a TRUNCATE or before the
        table was dropped and created again are gone; the rows of a table renamed into this one
        (RENAME TABLE old TO this) are carried over unless this table changed them since.
        An analyst's model is one line: {{ "{{" }} cdc_typed_current('shop', 'products') {{ "}}" }}.
        It selects the table's rows from cdc_table_live_rows, built once for every typed model, or
        runs that table's select itself when the table holds no rows.
    -#}
    {%- set database = cdc_typed_table_database(database, table, 'cdc_typed_current') %}
    {%- set columns = cdc_typed_columns(database, table) | selectattr('is_current') | list %}
    {%- set names = cdc_typed_column_names(
        columns | map(attribute='name') | list, ['primary_key', 'last_changed_ts', 'last_op']
    ) %}
-- depends_on: {{ ref('cdc_columns') }}
-- depends_on: {{ ref('cdc_tables') }}, {{ ref('cdc_history') }}, {{ ref('cdc_changes') }}
{%- set table_live_rows = ref('cdc_table_live_rows') %}
with

live_rows as (
{%- if cdc_has_rows(table_live_rows) %}
    select * from {{ table_live_rows }}
{%- else %}
    {#- not filled (no model read it when it was last built: a typed model built alone right after
        it was added, an inline query), or no live rows at all: the same select runs here -#}
    {{ cdc_table_live_rows_sql() }}
{%- endif %}
),

this_table_rows as (
    select *
    from live_rows
    where
        source_database <=> {{ cdc_sql_string(database) }}
        and source_table = {{ cdc_sql_string(table) }}
)

select
    primary_key as {{ cdc_sql_identifier(names.meta.primary_key) }},
    {{- cdc_typed_columns_select(columns, 'row', 'column_types', names.columns) }}
    last_changed_ts as {{ cdc_sql_identifier(names.meta.last_changed_ts) }},
    last_op as {{ cdc_sql_identifier(names.meta.last_op) }}
from this_table_rows
{% endmacro %}
