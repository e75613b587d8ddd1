{% macro cdc_parse_messages(source_relation, landings_relation, format_id, message_schema, map_fields=[]) %}
    {#-
        The committed landed messages of one format, parsed: one row per JSON object in the message
        (a message may be one object or an array of objects). Columns: the landing provenance,
        element_index, `message` (a struct of `message_schema`, every leaf a string holding the exact
        text), and parse_state: ok, tombstone (null value), undecodable (binary decoder failed, or
        text not UTF-8), invalid_json, not_an_object, invalid_key. parse_error is the reason that
        landings of an earlier cdc-lake, which checked the JSON, gave a message that is not JSON
        (null in later landings: cdc_parse_failure_reason computes the reason).
        `map_fields` names every map of `message_schema` (a path below `message`, `[]` at the end
        for an array of maps, '' for the message itself); a JSON object that repeats a key there
        makes the element invalid_key, with key_problem saying which key and where (`duplicate
        key "w" in data[0]`), and its `message` null, so no model builds a map from it.
    -#}
    with landed as (
        select *
        from {{ source_relation }}
        where
            message_format = '{{ format_id }}'
            and {{ cdc_in_landings_with_format(landings_relation, format_id) }}
    ),

    normalized as (
        select
            *,
            coalesce(message_text, {{ cdc_base64('message_bytes') }}) as raw_message,
            case
                when message_text is null then null
                when ltrim(message_text) like '[%' then {{ cdc_exact_json('message_text') }}
                else concat('[', {{ cdc_exact_json('message_text') }}, '\n]')
            end as exact_json
        from landed
    ),

    parsed as (
        select
            *,
            from_json(exact_json, 'array<{{ message_schema }}>', {{ cdc_json_options() }}) as message_array
        from normalized
    ),

    elements as (
        select
            parsed.message_id,
            parsed.landing_seq,
            parsed.message_index,
            parsed.landed_at,
            parsed.source_uri,
            parsed.kafka_topic,
            parsed.kafka_partition,
            parsed.kafka_offset,
            parsed.kafka_key,
            parsed.raw_message,
            parsed.decode_error,
            parsed.parse_error,
            parsed.message_text,
            parsed.message_array,
            exploded.element_index,
            exploded.message
        from parsed
        lateral view outer posexplode(parsed.message_array) exploded as element_index, message
    ),

    key_checked as (
        select
            *,
            {% if map_fields | length == 0 -%}
            cast(null as string) as key_problem
            {%- else -%}
            {{ cdc_maps_key_problem(map_fields) }} as key_problem
            {%- endif %}
        from elements
    )

    select
        message_id,
        landing_seq,
        message_index,
        landed_at,
        source_uri,
        kafka_topic,
        kafka_partition,
        kafka_offset,
        kafka_key,
        raw_message,
        decode_error,
        parse_error,
        key_problem,
        element_index,
        if(key_problem is null, key_checked.message, null) as message,
        case
            when decode_error is not null then 'undecodable'
            when message_text is null then 'tombstone'
            when message_array is null then 'invalid_json'
            when key_checked.message is null then 'not_an_object'
            when key_problem is not null then 'invalid_key'
            else 'ok'
        end as parse_state
    from key_checked
{% endmacro %}


{% macro cdc_parse_failure_reason(parse_state, format_id) %}
    {#-
        The quarantine reason for a message that did not parse (columns of cdc_parse_messages). The
        reason of a message that is not JSON is computed here, for those messages only.
    -#}
    case {{ parse_state }}
        when 'undecodable' then concat('undecodable bytes: ', decode_error)
        when 'tombstone' then 'empty message: no value (a Kafka tombstone), which {{ format_id }} does not use'
        when 'invalid_json' then coalesce(
            parse_error,
            {{ cdc_json_error('raw_message') }},
            'type mismatch: the message is JSON but not an object or a list of objects of {{ format_id }}'
        )
        when 'not_an_object' then 'not a {{ format_id }} message: the JSON is not an object'
        when 'invalid_key' then key_problem
    end
{% endmacro %}


{% macro cdc_in_landings_with_format(landings_relation, format_id) %}
    {#-
        A condition on landing_seq: the committed landings that hold messages of `format_id`, so a
        staging model reads only their partitions of the landing table and a format with nothing
        new costs next to nothing. A landing of an older cdc-lake (formats not recorded) may hold
        any format. The landings are literals (cdc_landing_seq_in) of the run's one snapshot
        (cdc_committed_landings), so Spark prunes the partitions while planning; while dbt parses,
        before anything was landed and in a unit test, a subquery of `landings_relation`.
    -#}
    {%- set landings = cdc_committed_landings(landings_relation) -%}
    {%- if landings is none -%}
        landing_seq in (
            select landing_seq
            from {{ landings_relation }}
            where formats is null or array_contains(formats, '{{ format_id }}')
        )
    {%- else -%}
        {%- set holding = [] -%}
        {%- for landing_seq, formats in landings if formats is none or format_id in formats -%}
            {%- do holding.append(landing_seq) -%}
        {%- endfor -%}
        {{ cdc_landing_seq_in(holding) }}
    {%- endif -%}
{% endmacro %}


{% macro cdc_landing_seq_in(landing_seqs) %}
    {#-
        A condition that landing_seq is one of `landing_seqs` (integers), as literals: runs of three
        or more consecutive landings as `between`, the rest in one `in` list; false for none.
    -#}
    {%- set ns = namespace(ranges=[], singles=[], start=none, last=none) -%}
    {%- for landing_seq in (landing_seqs | unique | sort) + [none] -%}
        {%- if ns.last is not none and (landing_seq is none or landing_seq != ns.last + 1) -%}
            {%- if ns.last - ns.start >= 2 -%}
                {%- do ns.ranges.append('landing_seq between ' ~ ns.start ~ ' and ' ~ ns.last) -%}
            {%- else -%}
                {%- set ns.singles = ns.singles + range(ns.start, ns.last + 1) | list -%}
            {%- endif -%}
            {%- set ns.start = none -%}
        {%- endif -%}
        {%- if ns.start is none -%}
            {%- set ns.start = landing_seq -%}
        {%- endif -%}
        {%- set ns.last = landing_seq -%}
    {%- endfor -%}
    {%- set terms = ns.ranges + (['landing_seq in (' ~ ns.singles | join(', ') ~ ')'] if ns.singles else []) -%}
    {{- '(' ~ terms | join(' or ') ~ ')' if terms else 'false' -}}
{% endmacro %}


{% macro cdc_json_error(text_column) %}
    {#-
        Why a message's text is not JSON as cdc_parse_messages parses it, or null when it is JSON:
        on Spark the JVM function cdc_json_error ("invalid JSON at offset N: Expecting ',' delimiter",
        python/cdc_lake/jvm/); on Databricks, where the project ships no jar, whether the text parses,
        without the place (json_array_length is null for text that is not a JSON array).
    -#}
    {%- if cdc_is_databricks() -%}
        if(
            json_array_length(concat('[', {{ cdc_exact_json_regex(text_column) }}, '\n]')) is null,
            'invalid JSON: the message does not parse',
            null
        )
    {%- else -%}
        {{ cdc_function('cdc_json_error') }}({{ text_column }})
    {%- endif -%}
{% endmacro %}
