{% test cdc_event_kind_is_known(model, ops=['insert', 'update', 'delete', 'snapshot']) %}
    {#-
        The staging contract in one pass: every row names its landed message and is a change, ddl,
        control or quarantine event; a change has one of its format's ops (cdc_staged_ops: the
        `meta: {cdc_ops: [...]}` of the format's staging model, else `ops`); a quarantine row
        says why. Each failing row comes with the broken rule in `violation`.
    -#}
    {%- set ops_by_format = cdc_staged_ops() %}
    with checked as (
        select
            *,
            case
                when message_id is null then 'message_id is null'
                when event_kind is null or event_kind not in ('change', 'ddl', 'control', 'quarantine')
                    then 'event_kind is not change, ddl, control or quarantine'
                when event_kind = 'change' and not coalesce(
                    case
                        {%- for format_id, format_ops in ops_by_format | dictsort %}
                        when source_format = '{{ format_id }}' then op in ('{{ format_ops | join("', '") }}')
                        {%- endfor %}
                        else op in ('{{ ops | join("', '") }}')
                    end,
                    false
                )
                    then concat('a change whose op is not one of its format''s (', coalesce(op, 'null'), ')')
                when event_kind = 'quarantine' and quarantine_reason is null
                    then 'a quarantine row without quarantine_reason'
            end as violation
        from {{ model }}
    )

    select *
    from checked
    where violation is not null
{% endtest %}
