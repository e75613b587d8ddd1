{{ cdc_typed_current('crm_tenant.crm', 'customers') }}
