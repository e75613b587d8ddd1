{% test cdc_valid_to_null_iff_current(model) %}
    {#- Fails for every version of an SCD2 model whose valid_to is null but is not current, or the reverse. -#}
    select *
    from {{ model }}
    where (valid_to is null) != is_current
{% endtest %}
