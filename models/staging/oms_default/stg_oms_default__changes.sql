{#-
    OceanBase OMS "Default" JSON (prevStruct / postStruct / allMetaData / recordType): one row per
    change (INSERT, UPDATE, DELETE; ROW = full-load row, op snapshot), DDL statement, HEARTBEAT
    (control) or quarantined message. The logic is shared with oms_extend_column_type through the
    macro cdc_oms_default_changes.
-#}
{{ cdc_oms_default_changes(
    source('oms_default', 'raw_messages'),
    source('cdc_landing', 'landings'),
    'oms_default'
) }}
