{% macro cdc_typed_columns_select(columns, image, types, names=none) %}
    {#-
        One typed, named column per entry of `columns`, read from `image` with per-row `types`,
        named `names` (default: cdc_typed_column_names of the columns' names).
    -#}
    {%- set names = names if names is not none else cdc_typed_column_names(columns | map(attribute='name') | list, []).columns -%}
    {%- for column in columns %}
    {{ cdc_typed_value(
        cdc_column_text(image, column),
        column.spark_type,
        'coalesce(' ~ cdc_column_text(types, column) ~ ', ' ~ cdc_sql_string(column.source_type) ~ ')',
        column.get('source_types')
    ) }} as {{ cdc_sql_identifier(names[loop.index0]) }},
    {%- endfor %}
{% endmacro %}


{% macro cdc_column_text(image, column) %}
    {#- The text of one column in a row image, under any spelling the column was seen with. -#}
    {%- set lookups = [] -%}
    {%- for variant in (column.variants or [column.name]) -%}
        {%- do lookups.append('try_element_at(' ~ image ~ ', ' ~ cdc_sql_string(variant) ~ ')') -%}
    {%- endfor -%}
    {%- if lookups | length == 1 -%}
        {{ lookups[0] }}
    {%- else -%}
        coalesce({{ lookups | join(', ') }})
    {%- endif -%}
{% endmacro %}
