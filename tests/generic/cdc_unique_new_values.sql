{% test cdc_unique_new_values(model, column_name, new_landings_of) %}
    {#-
        Fails for every value of `column_name` that occurs in more than one row. On a scheduled
        build only the values of the landings that `new_landings_of`'s last build added are looked
        up (each against every row, so a new value that repeats an old one fails too): the old
        values were tested by the builds that added them. A first or full build tests them all.
    -#}
    {%- set watermark = cdc_tested_watermark(adapter.get_relation(
        database=model.database, schema=model.schema, identifier=new_landings_of
    )) %}
    select
        {{ column_name }} as unique_field,
        count(*) as n_records
    from {{ model }}
    {%- if watermark > 0 %}
    where {{ column_name }} in (
        select {{ column_name }}
        from {{ model }}
        where landing_seq > {{ watermark }}
    )
    {%- endif %}
    group by {{ column_name }}
    having count(*) > 1
{% endtest %}
