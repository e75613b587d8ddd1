{#-
    Landed messages that no format claimed (--format auto found no matching shape), or whose format
    no staging model reads (not in var('cdc_formats')), or that carry no value at all: the former
    are quarantined, the latter (tombstones) are control events. So every landed message reaches
    int_cdc__events, and cdc_landing_audit can account for it.
-#}
{%- set claimed_formats = "'" ~ var('cdc_formats') | join("', '") ~ "'" %}

with

landed as (
    select *
    from {{ source('cdc_landing', 'raw_messages') }}
    where
        message_format not in ({{ claimed_formats }})
        and landing_seq in (
            -- the landings holding a format no staging model reads (or, landed by an older
            -- cdc-lake, any format)
            select landing_seq
            from {{ source('cdc_landing', 'landings') }}
            where
                formats is null
                or exists(formats, landed_format -> landed_format not in ({{ claimed_formats }}))
        )
),

classified as (
    select
        *,
        case
            when message_text is null and message_bytes is null then 'control'
            else 'quarantine'
        end as event_kind,
        case when message_text is null and message_bytes is null then 'TOMBSTONE' end as event_type,
        case
            when decode_error is not null then concat('undecodable bytes: ', decode_error)
            when message_text is null and message_bytes is null then null
            when message_format = 'unknown'
                then concat(
                    'unknown format: no detector claims this message (declared format: ', declared_format, ')'
                )
            else
                concat(
                    'unknown format: no staging model reads format ', message_format,
                    ' (it is not in var cdc_formats)'
                )
        end as quarantine_reason,
        coalesce(message_text, {{ cdc_base64('message_bytes') }}) as raw_message,
        0 as element_index,
        message_format as source_format
    from landed
)

select
    {{ cdc_fill_staging_columns([
        'message_id', 'landing_seq', 'message_index', 'element_index', 'source_format', 'event_kind',
        'event_type', 'quarantine_reason', 'raw_message', 'source_uri', 'kafka_topic',
        'kafka_partition', 'kafka_offset', 'landed_at'
    ]) }}
from classified
