{% macro cdc_watermark(column='landing_seq', properties=none) %}
    {#-
        The highest `column` already in the model being built (0 on a first or full-refresh build):
        incremental models process only landings above it. Read at execution time, so the filter
        is a literal and Spark prunes the landing_seq partitions it does not need. Landing sequences
        start at 1, so `landing_seq > {{ cdc_watermark() }}` needs no is_incremental() guard. After
        a build of the model that did not finish it is the watermark that build started from, or
        0 when the model is rebuilt whole (cdc_restart_watermark).
        A Parquet table partitioned by `column` answers from the metastore (cdc_max_partition_value),
        without a Spark job; any other table is read. `properties`, when given, are the table's
        properties, already read (the cdc_incremental materialization reads them once).
    -#}
    {%- if not cdc_is_incremental_run() -%}
        {{- return(0) -}}
    {%- endif -%}
    {%- set restart_from = cdc_restart_watermark(this, properties) -%}
    {%- if restart_from is not none -%}
        {{- return(restart_from) -}}
    {%- endif -%}
    {%- set partition_by = config.get('partition_by') or [] -%}
    {%- set partition_by = [partition_by] if partition_by is string else partition_by -%}
    {%- if column in partition_by and config.get('file_format', 'parquet') == 'parquet' -%}
        {{- return(cdc_max_partition_value(this, column)) -}}
    {%- endif -%}
    {%- set result = run_query('select coalesce(max(' ~ column ~ '), 0) as watermark from ' ~ this) -%}
    {{- return(result.columns[0].values()[0] | int) -}}
{% endmacro %}


{% macro cdc_max_partition_value(relation, column) %}
    {#-
        The highest value of the integer partition column `column` among the partitions of the
        Parquet table `relation` (0 when it has none), from `show partitions`: a metastore call
        instead of a Spark job over the table's files. A Parquet table's partitions are the ones its
        writes created, so this equals max(`column`): an insert_overwrite creates only partitions
        it writes rows to, and a build killed while committing them leaves the table marked
        'running', which makes the next build start from the watermark that build started from,
        its partitions above dropped (cdc_restart_watermark).
    -#}
    {%- set ns = namespace(highest=0) -%}
    {%- for row in run_query('show partitions ' ~ relation).rows -%}
        {%- for part in (row[0] | string).split('/') -%}
            {%- set name, value = (part ~ '=').split('=')[:2] -%}
            {%- if name == column and value.isdigit() and value | int > ns.highest -%}
                {%- set ns.highest = value | int -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endfor -%}
    {{- return(ns.highest) -}}
{% endmacro %}
