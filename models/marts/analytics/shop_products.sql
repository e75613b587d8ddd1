{{ cdc_typed_current('shop', 'products') }}
