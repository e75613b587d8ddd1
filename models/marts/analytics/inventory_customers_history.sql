{{ cdc_typed_history('inventory', 'customers') }}
