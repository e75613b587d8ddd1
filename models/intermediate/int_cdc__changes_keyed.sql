{#-
    Row changes with their key resolved (the message's own key columns, else int_cdc__table_keys,
    else the whole row image for formats in var('cdc_whole_row_key_formats')) and the
    primary_key strings of the after and before images. Rows whose key cannot be resolved keep a
    key_problem and go to cdc_quarantine.
    SharePlex rows are keyed by the key values of meta.rowid ("{database}.{table}-{values joined by
    \u0001}"; for an update, the before image's key) whatever names are known, so a later seed or
    DDL cannot split a row's history. Each value is named by the one column (of the known key
    columns, if any) holding it in the full image (an update's before image; else its after image,
    for a rowid carrying the new key); an update's keys are those columns' values in its before
    and after images. Unnamed, an update keeps the rowid key if no column holding a value changes.
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

rowid_located as (
    select
        *,
        -- staging ends SharePlex's source_event_id with meta.rowid, which starts with meta.table
        concat_ws('.', source_database, source_table) || '-' as rowid_prefix,
        case
            when source_format = 'oms_shareplex'
                then instr('/' || source_event_id, '/' || concat_ws('.', source_database, source_table) || '-')
        end as rowid_at
    from resolved
),

rowid_split as (
    select
        * except (rowid_prefix, rowid_at),
        case
            when rowid_at > 0 then split(substr(source_event_id, rowid_at + length(rowid_prefix)), char(1))
        end as rowid_key_values
    from rowid_located
),

rowid_matched as (
    select
        *,
        -- per rowid value, the columns of the full image (an update's before image) holding it,
        -- of the known key columns when the message, seed or DDL names them
        transform(
            rowid_key_values,
            key_value -> filter(
                map_keys(coalesce(before, after)),
                column_name -> coalesce(before, after)[column_name] = key_value
                and (resolved_key_columns is null or array_contains(resolved_key_columns, column_name))
            )
        ) as rowid_before_candidates,
        -- the same in an update's after image, for a rowid carrying the new key
        case
            when op = 'update'
                then transform(
                    rowid_key_values,
                    key_value -> filter(
                        map_keys(after),
                        column_name -> after[column_name] = key_value
                        and (resolved_key_columns is null or array_contains(resolved_key_columns, column_name))
                    )
                )
        end as rowid_after_candidates
    from rowid_split
),

rowid_named as (
    select
        *,
        case
            when forall(rowid_before_candidates, candidates -> size(candidates) = 1)
                then transform(rowid_before_candidates, candidates -> candidates[0])
            when
                exists(rowid_before_candidates, candidates -> size(candidates) = 0)
                and forall(rowid_after_candidates, candidates -> size(candidates) = 1)
                then transform(rowid_after_candidates, candidates -> candidates[0])
        end as rowid_key_names,
        forall(rowid_before_candidates, candidates -> size(candidates) > 0)
        and forall(flatten(rowid_before_candidates), column_name -> before[column_name] <=> after[column_name])
            as is_rowid_key_kept
    from rowid_matched
),

keyed as (
    select
        * except (resolved_key_columns, key_source),
        coalesce(resolved_key_columns, rowid_key_names) as resolved_key_columns,
        case when rowid_key_values is not null and resolved_key_columns is null then 'rowid' else key_source end
            as key_source,
        case
            when rowid_key_values is null
                then {{ cdc_key_of('coalesce(after, before)', 'resolved_key_columns') }}
            when op != 'update' then to_json(rowid_key_values)
            when rowid_key_names is not null then to_json(transform(rowid_key_names, key_name -> after[key_name]))
            when is_rowid_key_kept then to_json(rowid_key_values)
        end as primary_key,
        case
            when op != 'update' then null
            when rowid_key_values is null then {{ cdc_key_of('before', 'resolved_key_columns') }}
            when rowid_key_names is not null then to_json(transform(rowid_key_names, key_name -> before[key_name]))
            when is_rowid_key_kept then to_json(rowid_key_values)
        end as before_primary_key
    from rowid_named
)

select
    * except (rowid_key_values, rowid_before_candidates, rowid_after_candidates, rowid_key_names, is_rowid_key_kept),
    case
        when rowid_key_values is not null and primary_key is null
            then
                'SharePlex update: the key values of meta.rowid are not each in one column of the row '
                || 'images, so a key change cannot be followed; name the key columns in the seed cdc_table_keys'
        when rowid_key_values is not null then null
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
