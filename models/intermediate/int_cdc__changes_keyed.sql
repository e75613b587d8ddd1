{#-
    Row changes with their key resolved (the message's own key columns, else int_cdc__table_keys,
    else the whole row image for formats in var('cdc_whole_row_key_formats')) and the
    primary_key strings of the after and before images. Rows whose key cannot be resolved keep a
    key_problem and go to cdc_quarantine.
    Incremental: each build keys the changes of the landings above its watermark.
-#}
{{
    config(
        materialized='incremental',
        incremental_strategy='insert_overwrite',
        partition_by=['landing_seq'],
    )
}}

with

changes as (
    select *
    from {{ cdc_events_above(cdc_watermark()) }} as events
    where event_kind = 'change'
),

table_keys as (
    select * from {{ ref('int_cdc__table_keys') }}
),

resolved as (
    select
        changes.*,
        case
            when size(changes.key_columns) > 0 then changes.key_columns
            when table_keys.key_columns is not null then table_keys.key_columns
            when changes.source_format in ({{ "'" ~ var('cdc_whole_row_key_formats') | join("', '") ~ "'" }})
                then array_sort(map_keys(coalesce(changes.after, changes.before)))
        end as resolved_key_columns,
        case
            when size(changes.key_columns) > 0 then 'message'
            when table_keys.key_columns is not null then table_keys.key_source
            when changes.source_format in ({{ "'" ~ var('cdc_whole_row_key_formats') | join("', '") ~ "'" }})
                then 'whole_row'
        end as key_source
    from changes
    left join table_keys
        on
            changes.source_database <=> table_keys.source_database
            and changes.source_table <=> table_keys.source_table
),

keyed as (
    select
        *,
        {{ cdc_key_of('coalesce(after, before)', 'resolved_key_columns') }} as primary_key,
        case
            when op = 'update' then {{ cdc_key_of('before', 'resolved_key_columns') }}
        end as before_primary_key
    from resolved
)

select
    *,
    case
        when resolved_key_columns is null
            then
                'no primary key: the message names no key columns and neither the seed '
                || 'cdc_table_keys nor a DDL statement gives them'
        when primary_key is null
            then
                'key column(s) ' || array_join(resolved_key_columns, ', ')
                || ' missing from the row image'
    end as key_problem
from keyed
