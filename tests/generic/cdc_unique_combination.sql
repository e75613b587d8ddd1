{% test cdc_unique_combination(model, columns) %}
    {#- Fails for every combination of `columns` that occurs in more than one row (nulls compare equal). -#}
    select
        {{ columns | join(', ') }},
        count(*) as occurrences
    from {{ model }}
    group by {{ columns | join(', ') }}
    having count(*) > 1
{% endtest %}
