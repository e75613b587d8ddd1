{#-
    The primary key each DDL statement declares (CREATE TABLE ... PRIMARY KEY, ALTER TABLE ... ADD
    PRIMARY KEY, or the producer's tableChanges), one row per statement that declares one.
    Incremental, a partition per landing: a build parses only the new landings' DDL, and
    int_cdc__table_keys picks the latest per table from this small table.
-#}
{{
    config(
        materialized=cdc_materialized('incremental'),
        incremental_strategy='insert_overwrite',
        partition_by=['landing_seq'],
    )
}}

with

ddl_events as (
    select
        source_database,
        source_table,
        ddl_key_columns,
        ddl_sql,
        event_ts,
        message_index,
        landing_seq
    from {{ ref('int_cdc__events') }}
    where
        event_kind = 'ddl'
        and landing_seq > {{ cdc_watermark() }}
        and source_table is not null
),

declared_keys as (
    select
        source_database,
        source_table,
        coalesce(
            case when size(ddl_key_columns) > 0 then ddl_key_columns end,
            {{ cdc_parse_primary_key('ddl_sql') }}
        ) as key_columns,
        event_ts,
        message_index,
        landing_seq
    from ddl_events
)

select *
from declared_keys
where size(key_columns) > 0 and not array_contains(key_columns, '')
