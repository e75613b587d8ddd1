{% macro cdc_version_order(relation_alias=none) %}
    {#-
        The order of the versions of one key, as one struct (compare with < or sort by it): source
        position (log file, position), event time, the producer's emitted time and batch number,
        then landing position (landing, message, element, row), for a key change the close of the
        old key before the new key, and the message id (the files of one landing share their line
        numbers). A missing source field sorts after every present one (its `no_` flag is true).
    -#}
    {%- set prefix = (relation_alias ~ '.') if relation_alias else '' -%}
    named_struct(
        {%- for column in ['source_log_file', 'source_log_pos', 'event_ts', 'emitted_ts', 'source_batch_id'] %}
        'no_{{ column }}', {{ prefix }}{{ column }} is null,
        '{{ column }}', {{ prefix }}{{ column }},
        {%- endfor %}
        'landing_seq', {{ prefix }}landing_seq,
        'message_index', {{ prefix }}message_index,
        'element_index', {{ prefix }}element_index,
        'row_index', {{ prefix }}row_index,
        'split_order', {{ prefix }}split_order,
        'message_id', {{ prefix }}message_id
    )
{% endmacro %}


{% macro cdc_same_key(left_alias, right_alias) %}
    {#- Null-safe equality of the (source_database, source_table, primary_key) of two relations. -#}
    {{ left_alias }}.source_database <=> {{ right_alias }}.source_database
    and {{ left_alias }}.source_table <=> {{ right_alias }}.source_table
    and {{ left_alias }}.primary_key <=> {{ right_alias }}.primary_key
{% endmacro %}
