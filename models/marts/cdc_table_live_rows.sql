{#-
    The live rows of every live table under its current name, with the column types of the change
    that wrote each (cdc_table_live_rows_sql): what every cdc_typed_current model selects one table
    from, so that the joins behind it run once per build, not once per typed model. It holds rows
    only when a model reads it (an analyst's typed model): a lake without one builds it empty,
    without reading the history. cdc_typed_current runs the same select itself when it finds this
    table empty (a typed model built alone right after it was added, an inline query).
-#}
{%- set has_readers = cdc_is_read_by_a_model(model.unique_id) %}

with

live_rows as (
    {{ cdc_table_live_rows_sql() }}
)

select * from live_rows
{%- if not has_readers %}
where false
{%- endif %}
