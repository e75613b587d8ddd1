{% macro cdc_typed_date(text, type_base, with_connect=true) %}
    {#-
        A date column's value: Kafka Connect / Debezium Date (days since 1970-01-01, when
        `with_connect`), epoch milliseconds of a midnight (13 digits or more), or a yyyy-mm-dd text
        with at most a midnight time part (any other time is not cut off: the value does not
        convert). `type_base` is the value's source type base (cdc_type_base).
    -#}
    case
        {%- if with_connect %}
        when {{ type_base }} in ('org.apache.kafka.connect.data.date', 'io.debezium.time.date')
            then date_from_unix_date(try_cast({{ text }} as int))
        {%- endif %}
        when trim({{ text }}) rlike '^-?[0-9]{11,}$'
            and try_cast({{ text }} as bigint) % 86400000 = 0
            then date_from_unix_date(try_cast(div(try_cast({{ text }} as bigint), 86400000) as int))
        when trim({{ text }}) rlike '^[+-]?[0-9]{4,}-[0-9]{1,2}-[0-9]{1,2}([ T]00:00(:00(\\.0*)?)?)?$'
            then try_cast(trim({{ text }}) as date)
    end
{% endmacro %}


{% macro cdc_typed_timestamp(text, type_base, with_connect=true) %}
    {#-
        A timestamp column's value: Kafka Connect / Debezium Timestamp, MicroTimestamp,
        NanoTimestamp and Date (when `with_connect`), Dataworks' `<epoch ms>.<9 digits of ns>`,
        epoch seconds or milliseconds (cdc_epoch_to_timestamp), or a datetime text with an optional
        zone. `type_base` is the value's source type base (cdc_type_base).
    -#}
    case
        {%- if with_connect %}
        when {{ type_base }} in ('org.apache.kafka.connect.data.timestamp', 'io.debezium.time.timestamp')
            then timestamp_micros(try_multiply(try_cast({{ text }} as bigint), 1000))
        when {{ type_base }} = 'io.debezium.time.microtimestamp'
            then timestamp_micros(try_cast({{ text }} as bigint))
        when {{ type_base }} = 'io.debezium.time.nanotimestamp'
            then timestamp_micros(try_cast(floor(try_cast({{ text }} as decimal(38, 0)) / 1000) as bigint))
        when {{ type_base }} in ('org.apache.kafka.connect.data.date', 'io.debezium.time.date')
            then try_cast(date_from_unix_date(try_cast({{ text }} as int)) as timestamp)
        {%- endif %}
        when trim({{ text }}) rlike '^[0-9]{13}\\.[0-9]{9}$'
            -- Dataworks: 13-digit epoch milliseconds . 9 digits of nanoseconds of the second
            then timestamp_micros(try_add(
                try_multiply(div(try_cast(split_part(trim({{ text }}), '.', 1) as bigint), 1000), 1000000),
                div(try_cast(split_part(trim({{ text }}), '.', 2) as bigint), 1000)
            ))
        when trim({{ text }}) rlike '^[+-]?[0-9]+(\\.[0-9]*)?$'
            then {{ cdc_epoch_to_timestamp('trim(' ~ text ~ ')') }}
        else try_cast(trim({{ text }}) as timestamp)
    end
{% endmacro %}


{% macro cdc_typed_text(text, type_base, with_connect=true) %}
    {#-
        A string column's value: the text as it is, except Kafka Connect / Debezium Time,
        MicroTime and NanoTime counts (when `with_connect`), which become a time of day
        (cdc_time_of_day_text). `type_base` is the value's source type base (cdc_type_base).
    -#}
    {%- if not with_connect -%}
        {{ text }}
    {%- else -%}
        case
            when {{ type_base }} in ('org.apache.kafka.connect.data.time', 'io.debezium.time.time')
                then {{ cdc_time_of_day_text(text, 3) }}
            when {{ type_base }} = 'io.debezium.time.microtime'
                then {{ cdc_time_of_day_text(text, 6) }}
            when {{ type_base }} = 'io.debezium.time.nanotime'
                then {{ cdc_time_of_day_text(text, 9) }}
            else {{ text }}
        end
    {%- endif -%}
{% endmacro %}


{% macro cdc_time_of_day_text(count_text, fraction_digits) %}
    {#-
        A time of day (or a MySQL TIME duration) from an integer count of 10^-fraction_digits
        seconds, as [-]HH:MM:SS[.fraction] with the fraction's trailing zeros dropped:
        3723500000 micros -> 01:02:03.5. Null when the text is not an integer.
    -#}
    {%- set unit = 10 ** fraction_digits -%}
    {%- set amount = 'abs(try_cast(' ~ count_text ~ ' as bigint))' -%}
    case
        when try_cast({{ count_text }} as bigint) is not null
            then concat(
                case when try_cast({{ count_text }} as bigint) < 0 then '-' else '' end,
                lpad(cast(div({{ amount }}, {{ 3600 * unit }}) as string), 2, '0'), ':',
                lpad(cast(div({{ amount }} % {{ 3600 * unit }}, {{ 60 * unit }}) as string), 2, '0'), ':',
                lpad(cast(div({{ amount }} % {{ 60 * unit }}, {{ unit }}) as string), 2, '0'),
                case
                    when {{ amount }} % {{ unit }} != 0
                        then concat(
                            '.',
                            regexp_replace(lpad(cast({{ amount }} % {{ unit }} as string), {{ fraction_digits }}, '0'), '0+$', '')
                        )
                    else ''
                end
            )
    end
{% endmacro %}
