{{ config(severity='warn') }}
{#-
    Warns (never fails) for every source table keyed by row image: no key is known for it (the
    messages name none, and neither the seed cdc_table_keys nor a DDL statement gives one), so
    cdc_history chains its row images into rows (int_cdc__row_image_chains). Add the table to
    seeds/cdc_table_keys.csv if it has a key.
-#}
select
    source_format,
    source_database,
    source_table,
    count(*) as changes_keyed_by_row_image
from {{ ref('int_cdc__changes') }}
where key_problem is null and key_source = 'row_image'
group by source_format, source_database, source_table
