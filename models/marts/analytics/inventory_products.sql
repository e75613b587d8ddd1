{{ cdc_typed_current('inventory', 'products') }}
