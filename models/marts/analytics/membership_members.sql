{{ cdc_typed_current('membership', 'members') }}
