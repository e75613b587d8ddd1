{{ config(severity='warn') }}
{#-
    Warns for every table whose changes were keyed by row image but which has a key now (a seed
    row of cdc_table_keys or a DDL statement added since): later changes use the key, the earlier
    ones stay chained by row image until `dbt build --full-refresh` re-keys the table's history.
-#}
with

row_image_tables as (
    -- the changes int_cdc__table_changes counted per landing, added up: a small table, not a
    -- scan of every change
    select
        source_database,
        source_table,
        sum(row_image_change_count) as changes_keyed_by_row_image
    from {{ ref('int_cdc__table_changes') }}
    group by source_database, source_table
    having sum(row_image_change_count) > 0
)

select
    row_image_tables.source_database,
    row_image_tables.source_table,
    row_image_tables.changes_keyed_by_row_image,
    table_keys.key_columns,
    table_keys.key_source
from row_image_tables
inner join {{ ref('int_cdc__table_keys') }} as table_keys
    on
        row_image_tables.source_database <=> table_keys.source_database
        and row_image_tables.source_table <=> table_keys.source_table
