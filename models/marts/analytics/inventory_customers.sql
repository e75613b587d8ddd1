{{ cdc_typed_current('inventory', 'customers') }}
