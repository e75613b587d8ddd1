{{ cdc_typed_current('crm', 'customers') }}
