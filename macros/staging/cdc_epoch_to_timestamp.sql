{% macro cdc_epoch_to_timestamp(epoch_text) %}
    {#-
        An epoch number given as text (seconds, milliseconds or microseconds, told apart by size;
        a fraction is allowed) as a UTC timestamp. Producers disagree on the unit: CKafka's
        canal-shaped messages write seconds where Canal writes milliseconds.
    -#}
    case
        when try_cast({{ epoch_text }} as decimal(38, 9)) is null then null
        when abs(try_cast({{ epoch_text }} as decimal(38, 9))) < 100000000000
            then timestamp_micros(try_cast(try_cast({{ epoch_text }} as decimal(38, 9)) * 1000000 as bigint))
        when abs(try_cast({{ epoch_text }} as decimal(38, 9))) < 100000000000000
            then timestamp_micros(try_cast(try_cast({{ epoch_text }} as decimal(38, 9)) * 1000 as bigint))
        else timestamp_micros(try_cast(try_cast({{ epoch_text }} as decimal(38, 9)) as bigint))
    end
{% endmacro %}
