{% test cdc_contiguous_versions(model, key_columns) %}
    {#-
        Fails for every version of an SCD2 model whose validity interval is not contiguous with the
        next one: valid_from after valid_to, valid_to not the next version's valid_from (null
        for the last version), or version numbers of a key that are not 1, 2, 3, ...
    -#}
    with versions as (
        select
            *,
            lead(valid_from) over (
                partition by {{ key_columns | join(', ') }} order by version_number
            ) as next_valid_from,
            row_number() over (
                partition by {{ key_columns | join(', ') }} order by version_number
            ) as expected_version_number
        from {{ model }}
    )

    select *
    from versions
    where
        valid_from is null
        or valid_from > valid_to
        or not (valid_to <=> next_valid_from)
        or version_number != expected_version_number
{% endtest %}
