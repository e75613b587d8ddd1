{#-
    One row per landed message of a committed landing: what became of it, and whether it was a
    duplicate (it had row changes, and int_cdc__changes kept none of them: each was delivered before).
    Each part of a message (an element of a JSON array, a row of a multi-row message, an entry of a
    protobuf Message) is a row change (with a resolved key), a DDL statement, a control event, or
    quarantined (including a row change whose key cannot be resolved, and a change of a table
    keyed by row image that matches no live row). outcome puts each message in exactly one class, so
    landed = change + ddl + control + quarantined + unaccounted; cdc_landing_audit counts the
    messages that `cdc-lake requeue` landed again as requeued instead.

    Incremental (one partition per landing_seq): a message's parts all come from its own landing,
    and so do its rows in int_cdc__changes (which never drops a row it kept), so a build adds the
    outcomes of the new landings only.
-#}
{{
    config(
        materialized=cdc_materialized('incremental'),
        incremental_strategy='insert_overwrite',
        partition_by=['landing_seq'],
    )
}}

{%- set watermark = cdc_watermark() %}

with

landed as (
    select
        message_id,
        landing_seq,
        message_index,
        message_format,
        source_uri,
        kafka_topic,
        kafka_partition,
        landed_input,
        is_kafka_offset_reused
    from {{ ref('stg_cdc_landing__messages') }}
    where landing_seq > {{ watermark }}
),

stored_changes as (
    -- the row changes int_cdc__changes stored: kept (a resolved key) or quarantined (a key_problem)
    select
        message_id,
        case when key_problem is null then 'kept_change' else 'keyless_change' end as part_kind
    from {{ ref('int_cdc__changes') }}
    where landing_seq > {{ watermark }}
),

event_parts as (
    -- every part once, row changes included ('change'); each stored change once more, as kept or
    -- keyless; and each change of a table keyed by row image whose before image matches no live
    -- row (as chained by this build) once more, as keyless
    select
        message_id,
        event_kind as part_kind
    from {{ ref('int_cdc__events') }}
    where landing_seq > {{ watermark }}

    union all

    select
        message_id,
        part_kind
    from stored_changes

    union all

    select
        message_id,
        'keyless_change' as part_kind
    from {{ ref('int_cdc__row_image_chains') }}
    where chain_problem is not null and landing_seq > {{ watermark }}
),

part_counts as (
    -- one pass over the parts: a message that had row changes and none of them kept is a
    -- duplicate (each was delivered before)
    select
        message_id,
        count_if(part_kind = 'change') - count_if(part_kind = 'keyless_change') as change_parts,
        count_if(part_kind = 'keyless_change') as keyless_change_parts,
        count_if(part_kind = 'ddl') as ddl_parts,
        count_if(part_kind = 'control') as control_parts,
        count_if(part_kind in ('quarantine', 'keyless_change')) as quarantined_parts,
        count_if(
            part_kind is null
            or part_kind not in ('change', 'kept_change', 'keyless_change', 'ddl', 'control', 'quarantine')
        ) as unknown_parts,
        count_if(part_kind = 'kept_change') > 0 as has_kept_change
    from event_parts
    group by message_id
),

outcomes as (
    select
        landed.*,
        coalesce(part_counts.change_parts, 0) as change_parts,
        coalesce(part_counts.keyless_change_parts, 0) as keyless_change_parts,
        coalesce(part_counts.ddl_parts, 0) as ddl_parts,
        coalesce(part_counts.control_parts, 0) as control_parts,
        coalesce(part_counts.quarantined_parts, 0) as quarantined_parts,
        coalesce(part_counts.unknown_parts, 0) as unknown_parts,
        coalesce(part_counts.change_parts, 0) > 0 and not part_counts.has_kept_change as is_duplicate
    from landed
    left join part_counts on landed.message_id = part_counts.message_id
)

select
    *,
    case
        when unknown_parts > 0 then 'unaccounted'
        when quarantined_parts > 0 then 'quarantined'
        when change_parts > 0 then 'change'
        when ddl_parts > 0 then 'ddl'
        when control_parts > 0 then 'control'
        else 'unaccounted'
    end as outcome,
    quarantined_parts > 0 and change_parts + ddl_parts + control_parts > 0 as is_partly_quarantined
from outcomes
