{#-
    Row changes with their key resolved (the message's own key columns, else int_cdc__table_keys)
    and the primary_key strings of the after and before images. A table with no key known at all
    is keyed by row image (key_source 'row_image'): primary_key is the whole row image, each
    image's own, and int_cdc__row_image_chains chains the images into rows. Rows whose key
    cannot be resolved (key columns missing from the image) keep a key_problem and go to
    cdc_quarantine.
    Rows carrying their key values without names (row_key_values: SharePlex meta.rowid; for an
    update, the before image's key) are keyed by those values, as a JSON array, whatever names are
    known, so a later seed or DDL cannot split a row's history. Each value is named by the one
    column (of the known key columns, if any) holding it in the full image (an update's before
    image; else its after image, for a rowid carrying the new key), and an update's keys are those
    columns' values. Unnamed, an update keeps its key if no column holding a value changes.
    A view where the project's cdc_incremental materialization builds int_cdc__changes: that
    model reads it for the landings above its watermark (Spark prunes int_cdc__events to those
    landings), keys, deduplicates and stores the changes in one query, keyless ones included (it
    reads the view once, for the change ids and keys on narrow rows, and joins them to the wide
    rows of int_cdc__events, which are not keyed again); no wide copy of the events is written
    only to add the keys. Its watermark counts every landing a
    build covered (`cdc_lake.built_through`), so no landing is keyed a second time with a key
    learnt since. dbt-databricks' incremental records no such thing, and a landing that gave
    int_cdc__changes no row (re-deliveries only) would be read again: on Databricks this model
    stays an incremental table, each change keyed once, as its landing's build found the key.
-#}
{%- set is_view = cdc_materialized('incremental') == 'cdc_incremental' %}
{%- if is_view %}
{{ config(materialized=cdc_materialized('view')) }}
{%- else %}
{{
    config(
        materialized='incremental',
        incremental_strategy='insert_overwrite',
        partition_by=['landing_seq'],
    )
}}
{%- endif %}
{#- the table reads the landings above its watermark; the view's reader filters it -#}
{%- set new_landings_only = '' if is_view else ' and landing_seq > ' ~ cdc_watermark() %}

with

changes as (
    select *
    from {{ ref('int_cdc__events') }}
    where event_kind = 'change'{{ new_landings_only }}
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

rowid_holders as (
    -- per value of row_key_values, the columns (of the known key columns, if any) holding it in
    -- the full image (an update's before image) and in an update's after image
    select
        *,
        transform(
            row_key_values,
            key_value -> filter(
                coalesce(resolved_key_columns, map_keys(coalesce(before, after))),
                column_name -> coalesce(before, after)[column_name] = key_value
            )
        ) as before_holders,
        transform(
            row_key_values,
            key_value -> filter(
                coalesce(resolved_key_columns, map_keys(after)), column_name -> after[column_name] = key_value
            )
        ) as after_holders
    from resolved
),

rowid_named as (
    select
        * except (before_holders, after_holders),
        case
            when forall(before_holders, holders -> size(holders) = 1)
                then transform(before_holders, holders -> holders[0])
            -- an update whose row_key_values are its new key
            when
                op = 'update'
                and exists(before_holders, holders -> size(holders) = 0)
                and forall(after_holders, holders -> size(holders) = 1)
                then transform(after_holders, holders -> holders[0])
        end as row_key_names,
        forall(before_holders, holders -> size(holders) > 0)
        and forall(flatten(before_holders), column_name -> before[column_name] <=> after[column_name])
            as is_row_key_kept
    from rowid_holders
),

keyed as (
    select
        * except (resolved_key_columns, key_source),
        case
            when row_key_values is not null then coalesce(resolved_key_columns, row_key_names)
            when key_source = 'row_image' then array_sort(map_keys(coalesce(after, before)))
            else resolved_key_columns
        end as resolved_key_columns,
        case when row_key_values is not null and resolved_key_columns is null then 'rowid' else key_source end
            as key_source,
        case
            when row_key_values is not null
                then case
                    when op != 'update' then to_json(row_key_values)
                    when row_key_names is not null then to_json(transform(row_key_names, key_name -> after[key_name]))
                    when is_row_key_kept then to_json(row_key_values)
                end
            when key_source = 'row_image' then {{ cdc_row_image_key('coalesce(after, before)') }}
            else {{ cdc_key_of('coalesce(after, before)', 'resolved_key_columns') }}
        end as primary_key,
        case
            when op != 'update' then null
            when row_key_values is not null
                then case
                    when row_key_names is not null then to_json(transform(row_key_names, key_name -> before[key_name]))
                    when is_row_key_kept then to_json(row_key_values)
                end
            when key_source = 'row_image' then {{ cdc_row_image_key('before') }}
            else {{ cdc_key_of('before', 'resolved_key_columns') }}
        end as before_primary_key
    from rowid_named
)

select
    * except (row_key_values, row_key_names, is_row_key_kept),
    case
        when row_key_values is not null and primary_key is null
            then
                'SharePlex update: the key values of meta.rowid are not each in one column of the row '
                || 'images, so a key change cannot be followed; name the key columns in the seed cdc_table_keys'
        when row_key_values is not null then null
        when primary_key is null and key_source = 'row_image'
            then 'no row image: the change carries neither a before nor an after image'
        when primary_key is null
            then
                'key column(s) ' || array_join(resolved_key_columns, ', ')
                || ' missing from the row image'
    end as key_problem
from keyed
