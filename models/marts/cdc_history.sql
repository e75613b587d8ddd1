{#-
    SCD type 2: one row per version of a source row. Every change opens a version of its key; a
    delete leaves a version with is_deleted; an UPDATE that changes the primary key closes the old
    key (a deleted version) and opens the new one. valid_from is the change's event time (never
    before the previous version's), valid_to the next version's valid_from.

    Storage: partitioned by closed_in_landing, the landing of the change that closed the version
    (0 while it is current). Closed versions never move, so an incremental build writes
    - the new partitions (versions closed by the new landings),
    - partition 0 (the current versions), and
    - only for keys with a late-arriving event (one that orders before the key's current
      version), the old partitions holding that key's versions, rewritten whole.
    Keys without late events continue from their current version; keys with late events are
    re-chained from all their changes. The result equals a full rebuild.
-#}
{{
    config(
        materialized='incremental',
        incremental_strategy='insert_overwrite',
        partition_by=['closed_in_landing'],
    )
}}

{%- set key_columns = ['source_database', 'source_table', 'primary_key'] -%}
{%- set incremental = cdc_is_incremental() -%}
{%- set watermark = cdc_watermark() -%}

with

changes as (
    select * from {{ ref('cdc_changes') }}
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
    where closed_in_landing = 0
),

touched_current as (
    select current_versions.*
    from current_versions
    left semi join new_events
        on {{ cdc_same_key('current_versions', 'new_events') }}
),

late_keys as (
    select distinct
        {%- for c in key_columns %}
        new_events.{{ c }}{{ ',' if not loop.last }}
        {%- endfor %}
    from new_events
    inner join touched_current
        on {{ cdc_same_key('new_events', 'touched_current') }}
    where {{ cdc_version_order('new_events') }} < {{ cdc_version_order('touched_current') }}
),

chain_input as (
    -- keys with late events: every event again
    select
        version_events.*,
        cast(null as int) as base_version_number,
        cast(null as timestamp) as base_valid_from
    from version_events
    left semi join late_keys
        on {{ cdc_same_key('version_events', 'late_keys') }}

    union all

    -- other touched keys: their current version, then the new events
    select
        {%- for c in ['source_database', 'source_table', 'primary_key', 'op', 'row', 'is_deleted',
            'source_format', 'change_id', 'event_ts', 'source_log_file', 'source_log_pos',
            'landing_seq', 'message_index', 'element_index', 'row_index', 'split_order',
            'message_id', 'landed_at'] %}
        touched_current.{{ c }},
        {%- endfor %}
        touched_current.version_number as base_version_number,
        touched_current.valid_from as base_valid_from
    from touched_current
    left anti join late_keys
        on {{ cdc_same_key('touched_current', 'late_keys') }}

    union all

    select
        new_events.*,
        cast(null as int) as base_version_number,
        cast(null as timestamp) as base_valid_from
    from new_events
    left anti join late_keys
        on {{ cdc_same_key('new_events', 'late_keys') }}
),

{% else %}

chain_input as (
    select
        version_events.*,
        cast(null as int) as base_version_number,
        cast(null as timestamp) as base_valid_from
    from version_events
),

{% endif %}

numbered as (
    select
        *,
        coalesce(
            base_version_number,
            coalesce(max(base_version_number) over (partition by {{ key_columns | join(', ') }}), 0)
            + row_number() over (
                partition by {{ key_columns | join(', ') }}, base_version_number is null
                order by {{ cdc_version_order() }}
            )
        ) as version_number,
        max(coalesce(base_valid_from, event_ts, landed_at)) over (
            partition by {{ key_columns | join(', ') }}
            order by {{ cdc_version_order() }}
            rows between unbounded preceding and current row
        ) as valid_from
    from chain_input
),

chained as (
    select
        *,
        lead(valid_from) over (
            partition by {{ key_columns | join(', ') }}
            order by version_number
        ) as valid_to,
        coalesce(
            lead(landing_seq) over (
                partition by {{ key_columns | join(', ') }}
                order by version_number
            ),
            0
        ) as closed_in_landing
    from numbered
),

rechained as (
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
        landing_seq,
        message_index,
        element_index,
        row_index,
        split_order,
        message_id,
        landed_at,
        closed_in_landing
    from chained
)

{% if incremental %}

,

rewritten_old_partitions as (
    select distinct existing.closed_in_landing
    from {{ this }} as existing
    left semi join late_keys
        on {{ cdc_same_key('existing', 'late_keys') }}
    where existing.closed_in_landing != 0

    union

    select distinct rechained.closed_in_landing
    from rechained
    where rechained.closed_in_landing between 1 and {{ watermark }}
),

new_keys as (
    select distinct source_database, source_table, primary_key
    from new_events
),

kept_versions as (
    -- the current versions of keys without new events
    select existing.*
    from {{ this }} as existing
    left anti join new_keys
        on {{ cdc_same_key('existing', 'new_keys') }}
    where existing.closed_in_landing = 0

    union all

    -- the other keys' versions in the old partitions rewritten for late events
    select existing.*
    from {{ this }} as existing
    left anti join late_keys
        on {{ cdc_same_key('existing', 'late_keys') }}
    where existing.closed_in_landing in (select closed_in_landing from rewritten_old_partitions)
)

select * from rechained
union all
select * from kept_versions

{% else %}

select * from rechained

{% endif %}
