{{ cdc_typed_current('trade_tenant.trade', 'orders') }}
