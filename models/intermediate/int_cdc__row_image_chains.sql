{#-
    The changes of tables keyed by row image (no key known: int_cdc__changes_keyed's key_source
    'row_image'), chained into rows. In each table's order (cdc_version_order) an insert or
    snapshot starts a row; an update continues the live row whose image equals its before image
    and gives it the after image; a delete ends it. Identical live rows are counted, not merged:
    each is its own row, and an update or delete takes the oldest of them. A row's primary_key
    names the change that started it ({"row_image_chain": "<change_id>"}); a change whose before
    image matches no live row cannot be chained and keeps a chain_problem (cdc_quarantine).
    A table: every build chains each such table's changes again from the first (a late change
    can re-pair identical rows), in one pass per table (cdc_chain_row_images). It reads only the
    landings int_cdc__table_changes counts row-image changes in.
-#}
{{ config(materialized=cdc_materialized('table')) }}

with

row_image_landings as (
    -- the landings that brought changes of tables keyed by row image, as int_cdc__table_changes
    -- counts them: Spark reads only their partitions of int_cdc__changes (dynamic partition
    -- pruning), so a lake without such tables reads no change at all
    select distinct landing_seq
    from {{ ref('int_cdc__table_changes') }}
    where row_image_change_count > 0
),

row_image_changes as (
    select
        keyed_changes.*,
        1 as split_order
    from {{ ref('int_cdc__changes') }} as keyed_changes
    left semi join row_image_landings
        on keyed_changes.landing_seq = row_image_landings.landing_seq
    where keyed_changes.key_problem is null and keyed_changes.key_source = 'row_image'
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
        array_sort(collect_list(struct(chain_position, change_id, op, before_image_id, after_image_id)))
            as ordered_changes
    from positioned
    group by source_database, source_table
),

table_chains as (
    -- per change of a table (by chain_position), the change_id of the change that started its row
    select
        source_database,
        source_table,
        transform(
            {{ cdc_chain_row_images(
                'transform(ordered_changes, change -> change.op)',
                'transform(ordered_changes, change -> change.before_image_id)',
                'transform(ordered_changes, change -> change.after_image_id)'
            ) }},
            start_position -> ordered_changes[start_position].change_id
        ) as start_change_ids
    from table_sequences
),

chained as (
    select
        positioned.*,
        table_chains.start_change_ids[positioned.chain_position] as start_change_id
    from positioned
    inner join table_chains
        on
            positioned.source_database <=> table_chains.source_database
            and positioned.source_table <=> table_chains.source_table
),

row_keyed as (
    select
        * except (primary_key),
        primary_key as image_key,
        case
            when start_change_id is not null then to_json(named_struct('row_image_chain', start_change_id))
        end as row_key
    from chained
)

select
    change_id,
    source_format,
    source_database,
    source_table,
    op,
    row_key as primary_key,
    case when op = 'update' then row_key end as before_primary_key,
    image_key,
    before,
    after,
    event_ts,
    source_log_file,
    source_log_pos,
    emitted_ts,
    source_batch_id,
    message_id,
    landing_seq,
    message_index,
    element_index,
    row_index,
    landed_at,
    case
        when start_change_id is null
            then
                'no live row to ' || op || ': the table has no key, and its before image '
                || 'matches no live row (keyed by row image; add its key to the seed cdc_table_keys)'
    end as chain_problem
from row_keyed
