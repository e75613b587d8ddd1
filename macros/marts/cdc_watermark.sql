{% macro cdc_watermark(column='landing_seq') %}
    {#-
        The highest `column` already in the model being built (0 on a first or full-refresh build):
        incremental models process only landings above it. Read at execution time, so the filter
        is a literal and Spark prunes the landing_seq partitions it does not need. Landing sequences
        start at 1, so `landing_seq > {{ cdc_watermark() }}` needs no is_incremental() guard. After
        an interrupted build of the model it is 0 as well (cdc_is_incremental()).
    -#}
    {%- if cdc_is_incremental() -%}
        {%- set result = run_query('select coalesce(max(' ~ column ~ '), 0) as watermark from ' ~ this) -%}
        {{- return(result.columns[0].values()[0] | int) -}}
    {%- else -%}
        {{- return(0) -}}
    {%- endif -%}
{% endmacro %}
