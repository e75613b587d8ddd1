{% macro cdc_key_of(image, key_columns) %}
    {#-
        The primary_key string of a row image: a JSON object of the key columns (sorted by name) and
        their exact text, e.g. {"id":"42"}. Equal key values give equal strings; null when the image
        lacks a key column.
    -#}
    case
        when {{ image }} is not null
            and size({{ key_columns }}) > 0
            and forall({{ key_columns }}, key_column -> map_contains_key({{ image }}, key_column))
            then to_json(
                map_from_arrays(
                    array_sort({{ key_columns }}),
                    transform(array_sort({{ key_columns }}), key_column -> {{ image }}[key_column])
                )
            )
    end
{% endmacro %}


{% macro cdc_row_image_key(image) %}
    {#-
        The primary_key string of a row image for a table keyed by row image: the whole image as
        cdc_key_of gives it (every column, sorted by name), e.g. {"id":"42","name":"a"}.
    -#}
    {{ cdc_key_of(image, 'array_sort(map_keys(' ~ image ~ '))') }}
{% endmacro %}
