{% macro cdc_watermark(column='landing_seq') %}
    {#-
        The highest `column` already in the model being built (0 on a first or full-refresh build):
        incremental models process only landings above it. Read at execution time, so the filter
        is a literal and Spark prunes the landing_seq partitions it does not need. Landing sequences
        start at 1, so `landing_seq > {{ cdc_watermark() }}` needs no is_incremental() guard.
        It is what the model's table has processed (cdc_processed_through): after a build that did
        not finish, the watermark that build started from, or 0 when the model is rebuilt whole; a
        model partitioned by landing_seq also counts the landings its last build processed and
        gave it no rows (`cdc_lake.built_through`), so they are not read again.
        Read once per run (cdc_run_cache): the model's compilation and its materialization ask,
        both before the model's build changes its table (cdc_properties_before_build).
    -#}
    {%- if not cdc_is_incremental_run() -%}
        {{- return(0) -}}
    {%- endif -%}
    {%- set cache = cdc_run_cache() -%}
    {%- set key = 'watermark of ' ~ model.unique_id ~ ' in ' ~ column -%}
    {%- if key not in cache -%}
        {%- do cache.update({key: cdc_processed_through(this, cdc_properties_before_build(), config, column)}) -%}
    {%- endif -%}
    {{- return(cache[key]) -}}
{% endmacro %}


{% macro cdc_processed_through(relation, properties, node_config, column='landing_seq') %}
    {#-
        How far the incremental table `relation` has processed its input, in `column`: after a
        build that did not finish, what the next build restarts from (cdc_restart_watermark); for a
        table partitioned by `column` whose last build recorded the landings it covered
        (`cdc_lake.built_through`, cdc_mark_build), those: the build read its inputs up to what
        they had processed, so it holds no landing above it, and it may have covered landings that
        gave it no rows; else the highest `column` in the table.
        A Parquet table partitioned by `column` answers that from the metastore
        (cdc_max_partition_value), without a Spark job; any other table is read. `properties` are
        the table's (cdc_build_properties); `node_config` is its model's configuration.
    -#}
    {%- set restart_from = cdc_restart_watermark(relation, properties, node_config) -%}
    {%- if restart_from is not none -%}
        {{- return(restart_from) -}}
    {%- endif -%}
    {%- set partition_by = cdc_partition_columns(node_config.get('partition_by')) -%}
    {%- set built_through = properties.get('cdc_lake.built_through', '') -%}
    {%- if partition_by == [column] and built_through.isdigit() -%}
        {{- return(built_through | int) -}}
    {%- endif -%}
    {{- return(cdc_highest_value(relation, column, partition_by, node_config.get('file_format') or 'parquet')) -}}
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
        {%- if input.resource_type != 'model' -%}
        {%- elif input.config.materialized in ('cdc_incremental', 'incremental')
            and cdc_partition_columns(input.config.partition_by) == ['landing_seq'] -%}
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
        What the incremental model `node` (a graph node, partitioned by landing_seq) has processed
        (cdc_processed_through of its table), 0 when the table does not exist. Read once per run
        for each model: a model's table does not change within a run once read, because a model
        reads only tables built before it (cdc_run_cache).
    -#}
    {%- set cache = cdc_run_cache() -%}
    {%- set key = 'landings processed by ' ~ node.unique_id -%}
    {%- if key not in cache -%}
        {%- set relation = adapter.get_relation(database=node.database, schema=node.schema, identifier=node.alias) -%}
        {%- do cache.update({key: 0 if relation is none else cdc_processed_through(
            relation, cdc_build_properties(relation), node.config
        )}) -%}
    {%- endif -%}
    {{- return(cache[key]) -}}
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
