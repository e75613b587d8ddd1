{% macro cdc_event_position(relation_alias=none) %}
    {#-
        Where an event (a change, a version or a DDL statement) stands in time, as one struct to
        compare with < or max(): event time, then landing position (landing, message, element,
        row). Used to tell whether a row change came before or after a DDL statement.
    -#}
    {%- set prefix = (relation_alias ~ '.') if relation_alias else '' -%}
    named_struct(
        'event_ts', {{ prefix }}event_ts,
        'landing_seq', {{ prefix }}landing_seq,
        'message_index', {{ prefix }}message_index,
        'element_index', coalesce({{ prefix }}element_index, 0),
        'row_index', coalesce({{ prefix }}row_index, -1)
    )
{% endmacro %}
