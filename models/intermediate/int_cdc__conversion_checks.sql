{#-
    The conversion check of every value of every version (the events of cdc_version_events): one
    row per value that does not convert to its column's Spark type (spark_type of
    int_cdc__columns, the rows of cdc_columns), with record_kind 'failure', and one row per
    landing and table checked, with record_kind 'checked_table' and the hash of the table's
    column types it was checked against (cdc_column_types_fingerprints). Same conversion as the
    typed tables (cdc_typed_value).

    Incremental, a partition per landing: a build checks the new landings' values, and checks a
    landing again only when a table in it has other column types now (a type widened, a column was
    added, a DDL declared a type), since that can change which of its values convert. The Spark
    types in use and the landings to check again are read at execution time.

    Most values are plain text of their column's type (an integer, a decimal with no more fraction
    digits than the scale, a datetime, any text for a string column): cdc_surely_converts tells
    them with a few casts, and the full conversion (cdc_typed_value) runs only for the others.
    The tables each landing changed come from int_cdc__table_changes, which has counted them
    already. A build may write old landings' partitions (the checks again), so after a build that
    did not finish the model is rebuilt whole (cdc_resumable=false, cdc_restart_watermark).
-#}
{{
    config(
        materialized=cdc_materialized('incremental'),
        incremental_strategy='insert_overwrite',
        partition_by=['landing_seq'],
        cdc_resumable=false,
    )
}}
-- depends_on: {{ ref('int_cdc__columns') }}
{%- set spark_types = cdc_spark_types_in_use() %}
{%- set watermark = cdc_watermark() %}
{%- set recheck_landings = [] %}
{%- if cdc_is_incremental() %}
    {%- set stale = run_query(
        'with current_fingerprints as (' ~ cdc_column_types_fingerprints(ref('int_cdc__columns')) ~ ') '
        ~ 'select distinct checked.landing_seq from ' ~ this ~ ' as checked '
        ~ 'left join current_fingerprints '
        ~ 'on checked.source_database <=> current_fingerprints.source_database '
        ~ 'and checked.source_table <=> current_fingerprints.source_table '
        ~ "where checked.record_kind = 'checked_table' "
        ~ 'and not (checked.types_fingerprint <=> current_fingerprints.types_fingerprint) '
        ~ 'order by 1'
    ) %}
    {%- set recheck_landings = stale.columns[0].values() | map('int') | list %}
{%- endif %}
{%- set recheck_filter = ' or landing_seq in (' ~ recheck_landings | join(', ') ~ ')' if recheck_landings else '' %}

with

table_columns as (
    select
        source_database,
        source_table,
        lower(column_name) as column_key,
        column_name,
        spark_type,
        source_type
    from {{ ref('int_cdc__columns') }}
),

table_fingerprints as (
    {{ cdc_column_types_fingerprints(ref('int_cdc__columns')) }}
),

changes as (
    select *
    from {{ ref('int_cdc__changes') }}
    where
        key_problem is null
        and (landing_seq > {{ watermark }}{{ recheck_filter }})
),

table_changes as (
    select
        source_database,
        source_table,
        landing_seq
    from {{ ref('int_cdc__table_changes') }}
    where landing_seq > {{ watermark }}{{ recheck_filter }}
),

version_events as (
    {{ cdc_version_events('changes', extra_columns=['column_types']) }}
),

version_values as (
    select
        version_events.source_database,
        version_events.source_table,
        version_events.primary_key,
        version_events.split_order,
        version_events.change_id,
        version_events.source_format,
        version_events.landing_seq,
        version_events.column_types,
        row_value.value_column,
        row_value.value_text
    from version_events
        lateral view explode(version_events.row) row_value as value_column, value_text
    where row_value.value_text is not null
),

typed_values as (
    select
        version_values.*,
        table_columns.column_name,
        coalesce(
            try_element_at(version_values.column_types, version_values.value_column),
            table_columns.source_type
        ) as value_source_type,
        table_columns.spark_type
    from version_values
    inner join table_columns
        on
            version_values.source_database <=> table_columns.source_database
            and version_values.source_table = table_columns.source_table
            and lower(version_values.value_column) = table_columns.column_key
),

plain_checks as (
    -- a cheap test per value: most values are plain text of their column's type and surely convert
    select
        *,
        {% if spark_types -%}
        case spark_type
            {%- for spark_type in spark_types %}
            when {{ cdc_sql_string(spark_type) }}
                then {{ cdc_surely_converts('value_text', spark_type, 'value_source_type') }}
            {%- endfor %}
            else true
        end
        {%- else -%}
        true
        {%- endif %} as surely_converts
    from typed_values
),

uncertain_values as (
    -- the others, few, go through an exchange: the full conversion runs in a stage of its own, so
    -- the generated code of the stage every value passes stays small enough for the JIT compiler
    select /*+ repartition */ *
    from plain_checks
    where not coalesce(surely_converts, false)
),

decoded_values as (
    -- a number's text decoded once (a Kafka Connect Decimal, true/false), for every numeric type
    -- in the conversion below: decoded in each of them, the generated code of this stage grew
    -- over the JVM's 64 KB method limit
    select
        *,
        {{ cdc_numeric_text('value_text', 'value_source_type') }} as number_text
    from uncertain_values
),

checked_values as (
    select
        *,
        {% if spark_types -%}
        case spark_type
            {%- for spark_type in spark_types %}
            when {{ cdc_sql_string(spark_type) }}
                then {{ cdc_typed_value(
                    'value_text', spark_type, 'value_source_type', number_text='number_text'
                ) }} is null
            {%- endfor %}
            else false
        end
        {%- else -%}
        false
        {%- endif %} as is_failure
    from decoded_values
),

failures as (
    select
        'failure' as record_kind,
        source_database,
        source_table,
        column_name,
        primary_key,
        split_order,
        value_text as raw_text,
        value_source_type as source_type,
        spark_type as target_type,
        concat(
            'the text cannot be read as ', spark_type,
            coalesce(' (source type ' || value_source_type || ')', '')
        ) as reason,
        change_id,
        source_format,
        cast(null as string) as types_fingerprint,
        landing_seq
    from checked_values
    where is_failure
),

checked_tables as (
    select
        'checked_table' as record_kind,
        table_changes.source_database,
        table_changes.source_table,
        cast(null as string) as column_name,
        cast(null as string) as primary_key,
        cast(null as int) as split_order,
        cast(null as string) as raw_text,
        cast(null as string) as source_type,
        cast(null as string) as target_type,
        cast(null as string) as reason,
        cast(null as string) as change_id,
        cast(null as string) as source_format,
        table_fingerprints.types_fingerprint,
        table_changes.landing_seq
    from table_changes
    left join table_fingerprints
        on
            table_changes.source_database <=> table_fingerprints.source_database
            and table_changes.source_table <=> table_fingerprints.source_table
)

select * from failures

union all

select * from checked_tables
