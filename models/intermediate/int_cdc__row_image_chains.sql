{#-
    The changes of tables keyed by row image (no key known: int_cdc__changes_keyed's key_source
    'row_image'), chained into rows. In each table's order (cdc_version_order) an insert or
    snapshot starts a row; an update continues the live row whose image equals its before image
    and gives it the after image; a delete ends it. Identical live rows are counted, not merged:
    each is its own row, and an update or delete takes the oldest of them. A row's primary_key
    names the change that started it ({"row_image_chain": "<change_id>"}); a change whose before
    image matches no live row cannot be chained and keeps a chain_problem (cdc_quarantine).
    A table: every build chains each such table's changes again from the first (a late change
    can re-pair identical rows), in one pass per table (cdc_chain_row_images).
-#}
{{ config(materialized='table') }}

with

row_image_changes as (
    select
        *,
        1 as split_order
    from {{ ref('cdc_changes') }}
    where key_source = 'row_image'
),

positioned as (
    -- each change's position in its table's order, and its images' identities
    select
        *,
        cast(row_number() over (
            partition by source_database, source_table
            order by {{ cdc_version_order() }}
        ) - 1 as int) as chain_position,
        case op
            when 'update' then sha2(before_primary_key, 256)
            when 'delete' then sha2(primary_key, 256)
        end as before_image_id,
        case when op != 'delete' then sha2(primary_key, 256) end as after_image_id
    from row_image_changes
),

table_sequences as (
    -- each table's changes, in order, as one array
    select
        source_database,
        source_table,
        array_sort(collect_list(struct(chain_position, op, before_image_id, after_image_id))) as ordered_changes
    from positioned
    group by source_database, source_table
),

table_chains as (
    select
        source_database,
        source_table,
        {{ cdc_chain_row_images(
            'transform(ordered_changes, change -> change.op)',
            'transform(ordered_changes, change -> change.before_image_id)',
            'transform(ordered_changes, change -> change.after_image_id)'
        ) }} as start_positions
    from table_sequences
),

chained as (
    select
        positioned.*,
        table_chains.start_positions[positioned.chain_position] as start_position
    from positioned
    inner join table_chains
        on
            positioned.source_database <=> table_chains.source_database
            and positioned.source_table <=> table_chains.source_table
),

chain_starts as (
    select
        source_database,
        source_table,
        chain_position,
        change_id as start_change_id
    from positioned
)

select
    chained.change_id,
    chained.source_format,
    chained.source_database,
    chained.source_table,
    chained.op,
    to_json(named_struct('row_image_chain', chain_starts.start_change_id)) as primary_key,
    case
        when chained.op = 'update'
            then to_json(named_struct('row_image_chain', chain_starts.start_change_id))
    end as before_primary_key,
    chained.primary_key as image_key,
    chained.before,
    chained.after,
    chained.event_ts,
    chained.source_log_file,
    chained.source_log_pos,
    chained.emitted_ts,
    chained.source_batch_id,
    chained.message_id,
    chained.landing_seq,
    chained.message_index,
    chained.element_index,
    chained.row_index,
    chained.landed_at,
    case
        when chain_starts.start_change_id is null
            then
                'no live row to ' || chained.op || ': the table has no key, and its before image '
                || 'matches no live row (keyed by row image; add its key to the seed cdc_table_keys)'
    end as chain_problem
from chained
left join chain_starts
    on
        chained.source_database <=> chain_starts.source_database
        and chained.source_table <=> chain_starts.source_table
        and chained.start_position = chain_starts.chain_position
