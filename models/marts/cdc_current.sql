{#-
    The live rows: the current version of every key whose last change is not a delete. A view over
    the current partition of cdc_history, so it is never half-written and costs no rebuild.
-#}
{{ config(materialized='view') }}

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
where closed_in_landing = 0 and not is_deleted
