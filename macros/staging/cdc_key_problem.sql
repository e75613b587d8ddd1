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


{% macro cdc_maps_key_problem(map_fields, message='message') %}
    {#-
        cdc_key_problem of every map `map_fields` names (paths below `message`, as
        cdc_parse_messages takes them), checked as one list of (location, keys): the first problem in
        the order of `map_fields`, an array of maps at the first map that has one, its location with
        the map's index (`duplicate key "w" in data[0]`). One check expression for all of a format's
        maps keeps its staging query small (Spark analyzes the query of every format a build reads).
    -#}
    try_element_at(
        filter(
            transform(
                concat(
                    {%- for field in map_fields %}
                    {%- set path = (message ~ '.' ~ field).rstrip('.').replace('[]', '') %}
                    {%- set location = field.replace('[]', '') or 'the message' %}
                    {%- if field.endswith('[]') %}
                    transform(
                        coalesce({{ path }}, array()),
                        (checked_map, checked_map_index) -> named_struct(
                            'location', concat('{{ location }}[', checked_map_index, ']'),
                            'keys', map_keys(checked_map)
                        )
                    )
                    {%- else %}
                    array(named_struct('location', '{{ location }}', 'keys', map_keys({{ path }})))
                    {%- endif %}
                    {{- "," if not loop.last }}
                    {%- endfor %}
                ),
                key_list -> {{ cdc_key_problem('key_list.keys', 'key_list.location') }}
            ),
            map_problem -> map_problem is not null
        ),
        1
    )
{% endmacro %}
