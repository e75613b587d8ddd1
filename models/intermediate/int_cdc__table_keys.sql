{#-
    Key columns per source table for messages that do not name them: the user's seed
    cdc_table_keys first, else the most recent DDL that declares a primary key
    (CREATE TABLE ... PRIMARY KEY, ALTER TABLE ... ADD PRIMARY KEY, or tableChanges).
-#}
with

seeded_keys as (
    select
        source_database,
        source_table,
        transform(split(key_columns, '[|,]'), key_column -> trim(key_column)) as key_columns,
        'seed' as key_source
    from {{ ref('cdc_table_keys') }}
    where key_columns is not null and trim(key_columns) != ''
),

latest_ddl_keys as (
    select
        source_database,
        source_table,
        key_columns,
        'ddl' as key_source
    from {{ ref('int_cdc__ddl_keys') }}
    qualify row_number() over (
        partition by source_database, source_table
        order by event_ts desc, landing_seq desc, message_index desc
    ) = 1
)

select * from seeded_keys

union all

select latest_ddl_keys.*
from latest_ddl_keys
left anti join seeded_keys
    on
        latest_ddl_keys.source_database <=> seeded_keys.source_database
        and latest_ddl_keys.source_table <=> seeded_keys.source_table
