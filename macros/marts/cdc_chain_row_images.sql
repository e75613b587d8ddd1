{% macro cdc_chain_row_images(ops, before_images, after_images) %}
    {#-
        The row chains of a table without a key: given its changes in order as three aligned arrays
        (op, and the identity of the before and after image), per change the 0-based position of
        the change that started its row, or null when its before image matches no live row.
        An insert or snapshot starts a row (identical live rows are counted, not merged); an update
        continues the oldest live row whose image equals its before image; a delete ends it.
        On Spark the JVM function cdc_chain_row_images (RowImageChains.java, one linear pass); on
        Databricks, where the project ships no jar, cdc_chain_row_images_sql.
    -#}
    {%- if cdc_is_databricks() -%}
        {{ cdc_chain_row_images_sql(ops, before_images, after_images) }}
    {%- else -%}
        {{ cdc_function('cdc_chain_row_images') }}({{ ops }}, {{ before_images }}, {{ after_images }})
    {%- endif -%}
{% endmacro %}


{% macro cdc_chain_row_images_sql(ops, before_images, after_images) %}
    {#-
        cdc_chain_row_images as one fold (aggregate) over the changes, in plain Spark SQL. Its state
        is the live rows, oldest first, and the starts so far; each step scans the live rows, so the
        cost grows with changes x live rows. `transform(array(x), name -> ...)[0]` names a value
        once where a lambda needs it several times.
    -#}
    aggregate(
        -- the positions 0 .. size - 1 (none for no changes)
        slice(sequence(0, size({{ ops }})), 1, size({{ ops }})),
        named_struct(
            'live', filter(array(named_struct('image', cast(null as string), 'start', 0)), live_row -> false),
            'starts', filter(array(0), start -> false)
        ),
        (chains, position) -> transform(
            array(
                case
                    when
                        {{ ops }}[position] = 'delete'
                        or ({{ ops }}[position] = 'update' and {{ after_images }}[position] is not null)
                        then coalesce(
                            array_position(
                                transform(chains.live, live_row -> live_row.image),
                                {{ before_images }}[position]
                            ),
                            0
                        )
                    else 0
                end
            ),
            taken -> transform(
                array(
                    case
                        when {{ ops }}[position] in ('insert', 'snapshot') and {{ after_images }}[position] is not null
                            then cast(position as int)
                        when taken > 0 then chains.live[taken - 1].start
                    end
                ),
                start -> named_struct(
                    'live', concat(
                        filter(chains.live, (live_row, live_index) -> live_index != taken - 1),
                        filter(
                            array(named_struct('image', {{ after_images }}[position], 'start', start)),
                            live_row -> live_row.start is not null and {{ ops }}[position] != 'delete'
                        )
                    ),
                    'starts', concat(chains.starts, array(start))
                )
            )[0]
        )[0],
        chains -> chains.starts
    )
{% endmacro %}
