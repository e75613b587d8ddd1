{% macro cdc_history_columns(relation_alias=none) %}
    {#-
        The select list of cdc_history's columns (one per line, comma-separated), as
        int_cdc__history_versions and int_cdc__row_image_versions both store them.
    -#}
    {%- set prefix = (relation_alias ~ '.') if relation_alias else '' -%}
    {%- for column in [
        'source_database', 'source_table', 'primary_key', 'version_number', 'row', 'op', 'valid_from',
        'valid_to', 'is_current', 'is_deleted', 'source_format', 'change_id', 'event_ts',
        'source_log_file', 'source_log_pos', 'emitted_ts', 'source_batch_id', 'landing_seq',
        'message_index', 'element_index', 'row_index', 'split_order', 'message_id', 'landed_at',
        'closed_in_landing',
    ] %}
        {{ prefix }}{{ column }}{{ ',' if not loop.last }}
    {%- endfor %}
{% endmacro %}
