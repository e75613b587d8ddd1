{#-
    OceanBase OMS "DefaultExtendColumnType" JSON: the Default format plus `__light_type` inside each
    image ({column: {schemaType: TYPE}}), which is type metadata: it fills column_types and never
    appears in before/after. The logic is shared with oms_default through the macro
    cdc_oms_default_changes.
-#}
{{ cdc_oms_default_changes(
    source('oms_extend_column_type', 'raw_messages'),
    source('cdc_landing', 'landings'),
    'oms_extend_column_type'
) }}
