{#-
    The live rows: the current version of every key whose last change is not a delete, copied from
    the current partition of int_cdc__history_versions (as cdc_history shows it). A table of the
    project's `cdc_table` materialization (a new table per build, then the view is pointed at it), not
    a view: while a build replaces that partition (delete the folder, move the new one in) a view
    could read it missing, and readers of cdc_current must never see a half-written state.
    Tables keyed by row image add their live rows from int_cdc__row_image_versions (identical
    live rows are several rows, each with its own primary_key).
-#}

{%- set live_row_columns -%}
    source_database,
    source_table,
    primary_key,
    row,
    valid_from as last_changed_ts,
    op as last_op,
    version_number,
    source_format
{%- endset %}

with

live_keyed_rows as (
    select {{ live_row_columns }}
    from {{ ref('int_cdc__history_versions') }}
    where stored_in_landing = 0 and not is_deleted
),

live_row_image_rows as (
    select {{ live_row_columns }}
    from {{ ref('int_cdc__row_image_versions') }}
    where is_current and not is_deleted
)

select * from live_keyed_rows
union all
select * from live_row_image_rows
