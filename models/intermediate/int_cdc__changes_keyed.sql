{#-
    Row changes with their key resolved (the message's own key columns, else int_cdc__table_keys)
    and the primary_key strings of the after and before images. A table with no key known at all
    is keyed by row image (key_source 'row_image'): primary_key is the whole row image, each
    image's own, and int_cdc__row_image_chains chains the images into rows. Rows whose key
    cannot be resolved (key columns missing from the image) keep a key_problem and go to
    cdc_quarantine.
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
        end as resolved_key_columns,
        case
            when size(changes.key_columns) > 0 then 'message'
            when table_keys.key_columns is not null then table_keys.key_source
            else 'row_image'
        end as key_source
    from changes
    left join table_keys
        on
            changes.source_database <=> table_keys.source_database
            and changes.source_table <=> table_keys.source_table
),

keyed as (
    select
        * except (resolved_key_columns),
        coalesce(resolved_key_columns, array_sort(map_keys(coalesce(after, before)))) as resolved_key_columns,
        case
            when key_source = 'row_image' then {{ cdc_row_image_key('coalesce(after, before)') }}
            else {{ cdc_key_of('coalesce(after, before)', 'resolved_key_columns') }}
        end as primary_key,
        case
            when op != 'update' then null
            when key_source = 'row_image' then {{ cdc_row_image_key('before') }}
            else {{ cdc_key_of('before', 'resolved_key_columns') }}
        end as before_primary_key
    from resolved
)

select
    *,
    case
        when primary_key is null and key_source = 'row_image'
            then 'no row image: the change carries neither a before nor an after image'
        when primary_key is null
            then
                'key column(s) ' || array_join(resolved_key_columns, ', ')
                || ' missing from the row image'
    end as key_problem
from keyed
