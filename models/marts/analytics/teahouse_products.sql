{{ cdc_typed_current('teahouse', 'products') }}
