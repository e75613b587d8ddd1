{% macro cdc_version_events(changes, extra_columns=[]) %}
    {#-
        The events that open a version, from `changes` (int_cdc__changes or a CTE with its columns): one
        per change, whose row is the after image (the before image for a delete), and, for an UPDATE
        that changes the primary key, one more (split_order 0) that deletes the old key's row.
        cdc_history numbers them into versions; int_cdc__conversion_checks checks their rows.
        `extra_columns` are more columns of `changes` to carry, after the others.
    -#}
    select
        source_database,
        source_table,
        primary_key,
        op,
        case when op = 'delete' then before else after end as row,
        op = 'delete' as is_deleted,
        source_format,
        change_id,
        event_ts,
        source_log_file,
        source_log_pos,
        emitted_ts,
        source_batch_id,
        landing_seq,
        message_index,
        element_index,
        row_index,
        1 as split_order,
        message_id,
        landed_at
        {%- for column in extra_columns %},
        {{ column }}
        {%- endfor %}
    from {{ changes }}

    union all

    select
        source_database,
        source_table,
        before_primary_key as primary_key,
        'delete' as op,
        before as row,
        true as is_deleted,
        source_format,
        change_id,
        event_ts,
        source_log_file,
        source_log_pos,
        emitted_ts,
        source_batch_id,
        landing_seq,
        message_index,
        element_index,
        row_index,
        0 as split_order,
        message_id,
        landed_at
        {%- for column in extra_columns %},
        {{ column }}
        {%- endfor %}
    from {{ changes }}
    where before_primary_key is not null and before_primary_key != primary_key
{% endmacro %}
