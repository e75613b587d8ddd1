{% test cdc_scd2_versions(model, key_columns, new_landings_of=none) %}
    {#-
        Fails for every version of an SCD2 model that breaks its key's chain, with the reason in
        `violation`: valid_from null or after valid_to, valid_to not the next version's valid_from
        (null for the last version), version numbers of a key that are not 1, 2, 3, ..., or
        is_current not the same as "valid_to is null". One pass (a window per key) checks the grain
        too: version numbers 1, 2, 3, ... make (key, version_number) unique, and a chain whose last
        version alone has a null valid_to has exactly one current version.
        With `new_landings_of` (the incremental model that stores the versions), only the chains
        of the keys that the landings of its last build changed are checked (every version of
        such a key): the chains of other keys are as an earlier build left and tested them.
    -#}
    {%- set versions_relation = adapter.get_relation(
        database=model.database, schema=model.schema, identifier=new_landings_of
    ) if new_landings_of else none %}
    {#- 0 (test every version) without new_landings_of: cdc_tested_watermark(none) is 0 -#}
    {%- set watermark = cdc_tested_watermark(versions_relation) %}
    {#- the changed keys of a small increment are broadcast, so the versions are not shuffled to them -#}
    {%- set broadcast_changed_keys = '/*+ broadcast(changed_keys) */'
        if cdc_is_small_increment(versions_relation, watermark) else '' %}
    with

    {% if watermark > 0 -%}
    changed_keys as (
        select distinct {{ key_columns | join(', ') }}
        from {{ model }}
        where landing_seq > {{ watermark }}
    ),

    tested as (
        select {{ broadcast_changed_keys }} tested_versions.*
        from {{ model }} as tested_versions
        left semi join changed_keys
            on
            {%- for column in key_columns %}
                {{ 'and ' if not loop.first }}tested_versions.{{ column }} <=> changed_keys.{{ column }}
            {%- endfor %}
    ),
    {%- else -%}
    tested as (
        select * from {{ model }}
    ),
    {%- endif %}

    versions as (
        select
            {{ key_columns | join(', ') }},
            version_number,
            valid_from,
            valid_to,
            is_current,
            lead(valid_from) over (
                partition by {{ key_columns | join(', ') }} order by version_number, valid_from
            ) as next_valid_from,
            row_number() over (
                partition by {{ key_columns | join(', ') }} order by version_number, valid_from
            ) as expected_version_number
        from tested
    ),

    checked as (
        select
            *,
            case
                when valid_from is null then 'valid_from is null'
                when valid_from > valid_to then 'valid_from is after valid_to'
                when not (valid_to <=> next_valid_from)
                    then 'valid_to is not the valid_from of the next version (null for the last)'
                when version_number is null or version_number != expected_version_number
                    then 'the version numbers of the key are not 1, 2, 3, ... (a gap or a repeat)'
                when not ((valid_to is null) <=> is_current)
                    then 'is_current is not the same as valid_to is null'
            end as violation
        from versions
    )

    select *
    from checked
    where violation is not null
{% endtest %}
