{% macro cdc_kafka_input(topic_column, partition_column) %}
    {#-
        The name cdc_landing_audit counts a Kafka record's input under: `topic/partition`
        (null when either is null). Landed messages and lost offsets are matched on it.
    -#}
    {{ topic_column }} || '/' || {{ partition_column }}
{% endmacro %}
