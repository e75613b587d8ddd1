{#-
    The versions behind cdc_history (SCD type 2): one row per version of a source row, plus the
    superseded versions of re-chained keys, which the view cdc_history leaves out. Every change
    opens a version of its key; a delete leaves a version with is_deleted; an UPDATE that changes
    the primary key closes the old key (a deleted version) and opens the new one. valid_from is the
    change's event time (never before the previous version's), valid_to the next version's
    valid_from.

    Storage: partitioned by stored_in_landing: 0 for the current versions, else the landing whose
    build wrote the closed version. Closed versions are never rewritten, so an incremental build
    writes only partition 0 (the current versions) and partitions above its watermark, and one
    without new changes writes nothing:
    - a key without late events continues from its current version (its new closed versions go to
      the partitions of the landings that closed them);
    - a key with a late-arriving event (one that orders before the key's current version) is
      re-chained from all its events (the stored versions of its current chain, which hold every
      earlier event, and the new ones) into partition watermark + 1, with chain_start_landing set
      to that partition. Its earlier versions stay where they are, superseded: cdc_history keeps
      only the versions of a key's newest chain (the one its current version carries).
    The rows cdc_history shows equal a full rebuild's, which stores no superseded versions.
-#}
{{
    config(
        materialized=cdc_materialized('incremental'),
        incremental_strategy='insert_overwrite',
        partition_by=['stored_in_landing'],
    )
}}

{%- set key_columns = ['source_database', 'source_table', 'primary_key'] -%}
{%- set incremental = cdc_is_incremental() -%}
{%- set watermark = cdc_watermark() -%}
{#- the changes chained here: keyed (tables keyed by row image are chained in int_cdc__row_image_versions) -#}
{%- set chained = "key_problem is null and key_source != 'row_image'" -%}
{#- the new changes, and those of them chained here, counted in one query -#}
{%- set new_rows = cdc_row_counts(
    ref('int_cdc__changes'), 'landing_seq > ' ~ watermark, {'changes': 'true', 'chained': chained}
) if incremental else none -%}
{#- a build without new changes to chain (landings of re-deliveries only) writes nothing -#}
{%- set has_new_changes = new_rows is none or new_rows['chained'] > 0 -%}
{#- a small increment's keys are broadcast to the joins, not the history shuffled to them -#}
{%- set is_small_increment = new_rows is not none and has_new_changes and cdc_is_small_increment(
    ref('int_cdc__changes'), watermark, new_rows['changes']
) -%}
{%- set broadcast_new_keys = '/*+ broadcast(new_keys) */' if is_small_increment else '' -%}
{%- set broadcast_late_chains = '/*+ broadcast(late_chains) */' if is_small_increment else '' -%}
{#- the columns of an event (cdc_version_events), as a stored version also holds them -#}
{%- set event_columns = [
    'source_database', 'source_table', 'primary_key', 'op', 'row', 'is_deleted', 'source_format',
    'change_id', 'event_ts', 'source_log_file', 'source_log_pos', 'emitted_ts', 'source_batch_id',
    'landing_seq', 'message_index', 'element_index', 'row_index', 'split_order', 'message_id',
    'landed_at',
] -%}
{#- the windows: a key's rows; in their order (the numbering); and those up to the current one -#}
{%- set by_key = 'partition by ' ~ (key_columns | join(', ')) -%}
{%- set in_key_order = by_key ~ ' order by version_order' -%}
{%- set rows_so_far = in_key_order ~ ' rows between unbounded preceding and current row' -%}
{#- where this build writes the closed versions of re-chained keys -#}
{%- set rechain_partition = watermark + 1 -%}
{#- a chain input row that does not continue from a stored version -#}
{%- set no_base_version -%}
        cast(null as int) as base_version_number,
        cast(null as timestamp) as base_valid_from
{%- endset -%}

{% if not has_new_changes %}

-- nothing new to chain: no row, so insert_overwrite replaces no partition and the current
-- versions stay as stored (planning the query below alone costs more than a second)
select * from {{ this }}
where false

{% else %}

with

changes as (
    select * from {{ ref('int_cdc__changes') }}
    where {{ chained }}
),

version_events as (
    {{ cdc_version_events('changes') }}
),

{% if incremental %}

new_events as (
    select * from version_events
    where landing_seq > {{ watermark }}
),

current_versions as (
    select * from {{ this }}
    where stored_in_landing = 0
),

new_keys as (
    select distinct source_database, source_table, primary_key
    from new_events
),

touched_keys as (
    -- the current versions of the keys with new events (the narrow keys are broadcast, or
    -- shuffled with the current versions when the increment is large), and the new events
    select {{ broadcast_new_keys }}
        {%- for c in event_columns %}
        current_versions.{{ c }},
        {%- endfor %}
        current_versions.version_number as base_version_number,
        current_versions.valid_from as base_valid_from,
        current_versions.chain_start_landing as base_chain_start_landing
    from current_versions
    left semi join new_keys
        on {{ cdc_same_key('current_versions', 'new_keys') }}

    union all

    select
        {%- for c in event_columns %}
        new_events.{{ c }},
        {%- endfor %}
        {{ no_base_version }},
        cast(null as bigint) as base_chain_start_landing
    from new_events
),

late_marked as (
    -- a key has late events when one of its new events orders before its current version: a
    -- window per key over both finds them, with no join back to the current versions
    select
        *,
        coalesce(
            min(case when base_version_number is null then {{ cdc_version_order() }} end)
                over ({{ by_key }})
            < max(case when base_version_number is not null then {{ cdc_version_order() }} end)
                over ({{ by_key }}),
            false
        ) as is_late_key
    from touched_keys
),

late_chains as (
    -- the chain each key with late events is on now: its current version's
    select
        {%- for c in key_columns %}
        {{ c }},
        {%- endfor %}
        base_chain_start_landing as chain_start_landing
    from late_marked
    where is_late_key and base_version_number is not null
),

late_chain_versions as (
    -- keys with late events: every event so far, read back from the stored versions of their
    -- current chain (a chain holds every event of its key up to the build that wrote it; the
    -- stored versions are narrower to read than int_cdc__changes)
    select {{ broadcast_late_chains }}
        {%- for c in event_columns %}
        stored.{{ c }}{{ ',' if not loop.last }}
        {%- endfor %}
    from {{ this }} as stored
    left semi join late_chains
        on
            {{ cdc_same_key('stored', 'late_chains') }}
            and stored.chain_start_landing = late_chains.chain_start_landing
),

chain_input as (
    -- keys with late events: their stored versions and new events again, as a new chain
    select
        late_chain_versions.*,
        {{ no_base_version }},
        cast({{ rechain_partition }} as bigint) as base_chain_start_landing
    from late_chain_versions

    union all

    -- the new events (a late key's as part of its new chain), and the current versions the other
    -- touched keys continue from
    select
        {%- for c in event_columns %}
        {{ c }},
        {%- endfor %}
        base_version_number,
        base_valid_from,
        case
            when is_late_key then cast({{ rechain_partition }} as bigint)
            else base_chain_start_landing
        end as base_chain_start_landing
    from late_marked
    where not is_late_key or base_version_number is null
),

{% else %}

chain_input as (
    select
        version_events.*,
        {{ no_base_version }},
        cast(null as bigint) as base_chain_start_landing
    from version_events
),

{% endif %}

ordered_input as (
    -- each row with its place in its key's order: one column that every window below sorts by,
    -- so Spark sorts a key's rows once for all of them (a continued key's current version orders
    -- before its new events, or the key would have late events)
    select
        *,
        {{ cdc_version_order() }} as version_order
    from chain_input
),

numbered as (
    select
        *,
        -- a continued key counts on from its current version, its first row; any other from 1
        coalesce(first_value(base_version_number) over ({{ rows_so_far }}) - 1, 0)
        + row_number() over ({{ in_key_order }}) as version_number,
        max(coalesce(base_valid_from, event_ts, landed_at)) over ({{ rows_so_far }}) as valid_from,
        -- a re-chained key's rows all carry the new chain; a continued key's current version
        -- carries its chain; a key chained once from its first change has 0
        coalesce(
            first_value(base_chain_start_landing) over ({{ rows_so_far }}),
            cast(0 as bigint)
        ) as chain_start_landing
    from ordered_input
),

chained as (
    select
        *,
        lead(valid_from) over ({{ in_key_order }}) as valid_to,
        coalesce(lead(landing_seq) over ({{ in_key_order }}), 0) as closed_in_landing
    from numbered
),

written_versions as (
    select
        source_database,
        source_table,
        primary_key,
        version_number,
        row,
        op,
        valid_from,
        valid_to,
        valid_to is null as is_current,
        is_deleted,
        source_format,
        change_id,
        event_ts,
        source_log_file,
        source_log_pos,
        emitted_ts,
        source_batch_id,
        landing_seq,
        message_index,
        element_index,
        row_index,
        split_order,
        message_id,
        landed_at,
        closed_in_landing,
        chain_start_landing,
        -- only a re-chained key has versions closed by landings at or below the watermark
        case
            when closed_in_landing between 1 and {{ watermark }} then cast({{ rechain_partition }} as bigint)
            else closed_in_landing
        end as stored_in_landing
    from chained
)

{% if incremental %}

,

kept_versions as (
    -- the current versions of keys without new events
    select {{ broadcast_new_keys }} existing.*
    from {{ this }} as existing
    left anti join new_keys
        on {{ cdc_same_key('existing', 'new_keys') }}
    where existing.stored_in_landing = 0
)

select * from written_versions
union all
select * from kept_versions

{% else %}

select * from written_versions

{% endif %}

{% endif %}
