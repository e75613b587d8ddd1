{{ config(severity='warn') }}
{#-
    Warns (never fails) for every source table whose row changes are keyed by the whole row image:
    its format names no key columns (var('cdc_whole_row_key_formats'), e.g. ckafka_format_one)
    and neither the seed cdc_table_keys nor a DDL statement gives its primary key. Such a table's
    history treats every update as a new row; add the table to seeds/cdc_table_keys.csv.
-#}
select
    source_format,
    source_database,
    source_table,
    count(*) as changes_keyed_by_whole_row
from {{ ref('int_cdc__changes_keyed') }}
where key_source = 'whole_row'
group by source_format, source_database, source_table
