{#- The live rows: the current version of every key whose last change is not a delete. -#}
select
    source_database,
    source_table,
    primary_key,
    row,
    valid_from as last_changed_ts,
    op as last_op,
    version_number,
    source_format
from {{ ref('cdc_history') }}
where is_current and not is_deleted
