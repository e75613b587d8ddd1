{{ cdc_typed_current('retail', 'orders') }}
