{% macro cdc_staged_ops() %}
    {#-
        The ops each format's changes may have, as its staging model declares them: a dict of
        format id (of each model stg_<format>__changes) to the list in the model's
        `meta: {cdc_ops: [...]}`. Formats whose model declares none are left out (the caller's
        default applies). Read from dbt's graph, so it is empty while dbt parses.
    -#}
    {%- set ops_by_format = {} -%}
    {%- if execute -%}
        {%- for node in graph.nodes.values() if node.resource_type == 'model' -%}
            {%- set found = modules.re.match('^stg_(.+)__changes$', node.name) -%}
            {%- set ops = (node.config.meta or {}).get('cdc_ops') -%}
            {%- if found and ops -%}
                {%- do ops_by_format.update({found.group(1): ops}) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {{- return(ops_by_format) -}}
{% endmacro %}
