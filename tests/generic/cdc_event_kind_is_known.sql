{% test cdc_event_kind_is_known(model) %}
    {#- Staging rows must be a change, ddl, control or quarantine event; changes need an op. -#}
    select *
    from {{ model }}
    where
        event_kind is null
        or event_kind not in ('change', 'ddl', 'control', 'quarantine')
        or (event_kind = 'change' and op not in ('insert', 'update', 'delete', 'snapshot'))
        or (event_kind = 'quarantine' and quarantine_reason is null)
{% endtest %}
