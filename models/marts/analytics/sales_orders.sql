{{ cdc_typed_current('sales', 'orders') }}
