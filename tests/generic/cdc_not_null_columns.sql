{% test cdc_not_null_columns(model, columns) %}
    {#- Fails for every row in which any of `columns` is null, naming those columns: one query for what a not_null test per column checks. -#}
    select
        {{ columns | join(', ') }},
        concat_ws(', '
            {%- for column in columns %}, case when {{ column }} is null then '{{ column }}' end{% endfor %}
        ) as null_columns
    from {{ model }}
    where
        {% for column in columns -%}
            {{ column }} is null{{ ' or' if not loop.last }}
        {% endfor %}
{% endtest %}
