{% macro cdc_watermark(column='landing_seq', properties=none) %}
    {#-
        The highest `column` already in the model being built (0 on a first or full-refresh build):
        incremental models process only landings above it. Read at execution time, so the filter
        is a literal and Spark prunes the landing_seq partitions it does not need. Landing sequences
        start at 1, so `landing_seq > {{ cdc_watermark() }}` needs no is_incremental() guard. After
        a build of the model that did not finish it is the watermark that build started from, or
        0 when the model is rebuilt whole (cdc_restart_watermark).
        A model partitioned by landing_seq also counts the landings its last build processed and
        gave it no rows (`cdc_lake.built_through`, cdc_mark_build): they are not read again.
        A Parquet table partitioned by `column` answers from the metastore (cdc_max_partition_value),
        without a Spark job; any other table is read. `properties`, when given, are the table's
        properties, already read (the cdc_incremental materialization reads them once).
    -#}
    {%- if not cdc_is_incremental_run() -%}
        {{- return(0) -}}
    {%- endif -%}
    {%- set properties = cdc_build_properties(this) if properties is none else properties -%}
    {%- set restart_from = cdc_restart_watermark(this, properties) -%}
    {%- if restart_from is not none -%}
        {{- return(restart_from) -}}
    {%- endif -%}
    {%- set partition_by = config.get('partition_by') or [] -%}
    {%- set partition_by = [partition_by] if partition_by is string else partition_by -%}
    {%- set highest = cdc_highest_value(this, column, partition_by, config.get('file_format', 'parquet')) -%}
    {%- set built_through = properties.get('cdc_lake.built_through', '') -%}
    {%- if partition_by == [column] and built_through.isdigit() and built_through | int > highest -%}
        {{- return(built_through | int) -}}
    {%- endif -%}
    {{- return(highest) -}}
{% endmacro %}


{% macro cdc_highest_value(relation, column, partition_by, file_format) %}
    {#-
        The highest `column` in the table `relation` (0 when empty): from the metastore for a
        Parquet table partitioned by it (cdc_max_partition_value), else by a max() query.
    -#}
    {%- if column in partition_by and file_format == 'parquet' -%}
        {{- return(cdc_max_partition_value(relation, column)) -}}
    {%- endif -%}
    {%- set result = run_query('select coalesce(max(' ~ column ~ '), 0) as watermark from ' ~ relation) -%}
    {{- return(result.columns[0].values()[0] | int) -}}
{% endmacro %}


{% macro cdc_input_landings_processed(node=none) %}
    {#-
        The landings every input of the model being built has processed (none when it reads no
        incremental model partitioned by landing_seq): the lowest cdc_landings_processed of those
        it reads, directly or through views and ephemeral models. Read before the model writes,
        it is what the model's build covers: the model reads its inputs above its watermark, and
        an input holds nothing above what it processed. `node` is for the recursion (default: the
        model being built).
    -#}
    {%- set node = model if node is none else node -%}
    {%- set ns = namespace(lowest=none) -%}
    {%- for unique_id in node.depends_on.nodes if unique_id in graph.nodes -%}
        {%- set input = graph.nodes[unique_id] -%}
        {%- set processed = none -%}
        {%- set partition_by = input.config.partition_by -%}
        {%- set partition_by = [partition_by] if partition_by is string else (partition_by or []) -%}
        {%- if input.resource_type != 'model' -%}
        {%- elif input.config.materialized in ('cdc_incremental', 'incremental') and partition_by == ['landing_seq'] -%}
            {%- set processed = cdc_landings_processed(input) -%}
        {%- elif input.config.materialized in ('cdc_view', 'view', 'ephemeral') -%}
            {%- set processed = cdc_input_landings_processed(input) -%}
        {%- endif -%}
        {%- if processed is not none and (ns.lowest is none or processed < ns.lowest) -%}
            {%- set ns.lowest = processed -%}
        {%- endif -%}
    {%- endfor -%}
    {{- return(ns.lowest) -}}
{% endmacro %}


{% macro cdc_landings_processed(node) %}
    {#-
        The landings the incremental model `node` (a graph node, partitioned by landing_seq) has
        processed: after a finished build, its highest landing_seq or, when higher, the
        `cdc_lake.built_through` that build recorded; after an unfinished build, what the next one
        restarts from (cdc_restart_watermark); 0 when the table does not exist.
    -#}
    {%- set relation = adapter.get_relation(database=node.database, schema=node.schema, identifier=node.alias) -%}
    {%- if relation is none -%}
        {{- return(0) -}}
    {%- endif -%}
    {%- set properties = cdc_build_properties(relation) -%}
    {%- if properties.get('cdc_lake.build') == 'running' -%}
        {%- set built_above = properties.get('cdc_lake.built_above', '0') -%}
        {{- return(built_above | int if built_above.isdigit() and node.config.get('cdc_resumable', true) else 0) -}}
    {%- endif -%}
    {%- set highest = cdc_highest_value(relation, 'landing_seq', ['landing_seq'], node.config.get('file_format') or 'parquet') -%}
    {%- set built_through = properties.get('cdc_lake.built_through', '') -%}
    {{- return([highest, built_through | int if built_through.isdigit() else 0] | max) -}}
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
