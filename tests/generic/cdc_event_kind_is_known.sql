{% test cdc_event_kind_is_known(model, ops=['insert', 'update', 'delete', 'snapshot']) %}
    {#-
        The staging contract in one pass: every row names its landed message and is a change, ddl,
        control or quarantine event; a change has one of the format's `ops`; a quarantine row
        says why. Each failing row comes with the broken rule in `violation`.
    -#}
    with checked as (
        select
            *,
            case
                when message_id is null then 'message_id is null'
                when event_kind is null or event_kind not in ('change', 'ddl', 'control', 'quarantine')
                    then 'event_kind is not change, ddl, control or quarantine'
                when event_kind = 'change' and (op is null or op not in ('{{ ops | join("', '") }}'))
                    then 'a change whose op is not one of {{ ops | join(", ") }}'
                when event_kind = 'quarantine' and quarantine_reason is null
                    then 'a quarantine row without quarantine_reason'
            end as violation
        from {{ model }}
    )

    select *
    from checked
    where violation is not null
{% endtest %}
