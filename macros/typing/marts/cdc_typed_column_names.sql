{% macro cdc_typed_column_names(source_names, meta_names) %}
    {#-
        The column names of a typed model: {'columns': [a name per source column, in order],
        'meta': {bookkeeping name: its name}}, all different (case-insensitively). A source column
        keeps its name unless the name is empty or holds a character Parquet (Spark 3), Delta or
        Hive reject (space , ; { } ( ) newline tab carriage return =): each such character becomes
        _, an empty name becomes _cdc_unnamed. A bookkeeping column whose name a source column has
        is prefixed _cdc_. A name already taken gets _2, _3, ... cdc_columns keeps the source names.
    -#}
    {%- set unsafe = ' ,;{}()\n\t\r=' -%}
    {%- set taken = [] -%}
    {%- set wanted = [] -%}
    {%- for name in source_names -%}
        {%- set name = name | string if name is not none else '' -%}
        {%- set ns = namespace(safe=name) -%}
        {%- for character in unsafe -%}
            {%- set ns.safe = ns.safe | replace(character, '_') -%}
        {%- endfor -%}
        {%- do wanted.append(ns.safe if ns.safe != '' else '_cdc_unnamed') -%}
        {%- if ns.safe == name and name != '' and (name | lower) not in taken -%}
            {%- do taken.append(name | lower) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set kept = taken | list -%}
    {%- set meta = {} -%}
    {%- for name in meta_names -%}
        {%- set free = cdc_free_column_name(('_cdc_' ~ name) if name in kept else name, taken) -%}
        {%- do meta.update({name: free}) -%}
        {%- do taken.append(free | lower) -%}
    {%- endfor -%}
    {%- set columns = [] -%}
    {%- for name in source_names -%}
        {%- set name = name | string if name is not none else '' -%}
        {%- if wanted[loop.index0] == name and (name | lower) in kept and (name | lower) not in columns | map('lower') | list -%}
            {%- do columns.append(name) -%}
        {%- else -%}
            {%- set free = cdc_free_column_name(wanted[loop.index0], taken) -%}
            {%- do columns.append(free) -%}
            {%- do taken.append(free | lower) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return({'columns': columns, 'meta': meta}) }}
{% endmacro %}


{% macro cdc_free_column_name(name, taken) %}
    {#- `name`, or `name`_2, _3, ... : the first whose lowercase is not in `taken`. -#}
    {%- if (name | lower) not in taken -%}
        {{ return(name) }}
    {%- endif -%}
    {%- for suffix in range(2, taken | length + 3) -%}
        {%- if ((name ~ '_' ~ suffix) | lower) not in taken -%}
            {{ return(name ~ '_' ~ suffix) }}
        {%- endif -%}
    {%- endfor -%}
{% endmacro %}
