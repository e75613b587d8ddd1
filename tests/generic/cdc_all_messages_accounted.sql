{% test cdc_all_messages_accounted(model) %}
    {#-
        Fails for every landed input of cdc_landing_audit with a message not accounted for, or
        whose outcome counts do not add up to the messages landed.
    -#}
    select *
    from {{ model }}
    where
        unaccounted_messages != 0
        or landed_messages != outcome_change_messages + outcome_ddl_messages
        + outcome_control_messages + quarantined_messages + requeued_messages
        + unaccounted_messages
{% endtest %}
