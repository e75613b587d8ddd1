{{ cdc_typed_history('shop', 'products') }}
