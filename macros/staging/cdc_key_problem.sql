{% macro cdc_key_problem(keys_expression, location) %}
    {#-
        Why a list of keys cannot become a map, or null when it can: `null key in <location>`, or
        `duplicate key "w" in <location>` naming the first key that repeats (JSON-quoted, at most
        200 characters). map_concat, map_from_entries and map_from_arrays fail a query on such
        keys (NULL_MAP_KEY, DUPLICATED_MAP_KEY under Spark's default mapKeyDedupPolicy), and
        from_json into a map keeps a repeated key twice, so every map a message gives is checked
        with this before it is used. `location` is a SQL expression of text.
    -#}
    case
        when exists({{ keys_expression }}, checked_key -> checked_key is null)
            then concat('null key in ', {{ location }})
        when size({{ keys_expression }}) != size(array_distinct({{ keys_expression }}))
            then concat(
                'duplicate key ',
                regexp_extract(
                    to_json(named_struct(
                        'k',
                        left(
                            try_element_at(
                                filter(
                                    {{ keys_expression }},
                                    (checked_key, checked_index) -> array_position(
                                        {{ keys_expression }}, checked_key
                                    ) != checked_index + 1
                                ),
                                1
                            ),
                            200
                        )
                    )),
                    '^\\{"k":(.*)\\}$',
                    1
                ),
                ' in ',
                {{ location }}
            )
    end
{% endmacro %}


{% macro cdc_map_key_problem(map_expression, location) %}
    {#- cdc_key_problem of a map's keys (a map from_json made out of a JSON object). -#}
    {{ cdc_key_problem('map_keys(' ~ map_expression ~ ')', location) }}
{% endmacro %}


{% macro cdc_map_array_key_problem(array_expression, location) %}
    {#-
        cdc_key_problem of the first map of an array of maps that has one, its location with the
        map's index: `duplicate key "w" in data[0]`. `location` is the array's name (text).
    -#}
    try_element_at(
        filter(
            transform(
                {{ array_expression }},
                (checked_map, checked_map_index) -> {{ cdc_map_key_problem(
                    'checked_map', "concat('" ~ location ~ "[', checked_map_index, ']')"
                ) }}
            ),
            map_problem -> map_problem is not null
        ),
        1
    )
{% endmacro %}
