{% test cdc_one_current_version(model, key_columns) %}
    {#- Fails for every key (key_columns) of an SCD2 model without exactly one current version. -#}
    select
        {{ key_columns | join(', ') }},
        count(*) as versions,
        count_if(is_current) as current_versions
    from {{ model }}
    group by {{ key_columns | join(', ') }}
    having count_if(is_current) != 1
{% endtest %}
