{% macro cdc_let(name, value, body) %}
    {#-
        `body` evaluated with `name` bound to `value` (a one-element transform): Spark SQL has no
        expression-level let, and repeating a large sub-expression makes the generated SQL and
        plan grow with every use.
    -#}
    element_at(transform(array({{ value }}), {{ name }} -> {{ body }}), 1)
{% endmacro %}


{% macro cdc_type_base(source_type) %}
    {#-
        The base name of a source type text, lowercased: `int(11) unsigned` -> int,
        `DECIMAL(10,2)` -> decimal, `io.debezium.time.Date` -> io.debezium.time.date,
        `double precision` -> double, `timestamp(6) with time zone` -> timestamp.
    -#}
    regexp_extract(lower(trim({{ source_type }})), '^([a-z_][a-z0-9_.]*)', 1)
{% endmacro %}


{% macro cdc_type_name(source_type) %}
    {#-
        The name a source type text is listed under in cdc_source_type_codes: its base name
        (cdc_type_base), or for a name of several words the one-word name it stands for (`long raw`
        -> long_raw, `character varying(10)` -> varchar, `timestamp(3) with time zone` -> timestamptz).
    -#}
    {#- (brackets as classes; the Jinja literal's `\\\\s` reaches Spark's regex as `\s`, any white space) -#}
    {%- set multiword_names = [
        ('^long\\\\s+raw', 'long_raw'),
        ('^(character|char)\\\\s+varying', 'varchar'),
        ('^national\\\\s+(character|char)\\\\s+varying', 'nvarchar'),
        ('^national\\\\s+(character|char)', 'nchar'),
        ('^timestamp\\\\s*([(][0-9 ]*[)])?\\\\s+with\\\\s+local\\\\s+time\\\\s+zone', 'timestamp_with_local_time_zone'),
        ('^timestamp\\\\s*([(][0-9 ]*[)])?\\\\s+with\\\\s+time\\\\s+zone', 'timestamptz'),
        ('^time\\\\s*([(][0-9 ]*[)])?\\\\s+with\\\\s+time\\\\s+zone', 'timetz'),
    ] -%}
    case
        {%- for pattern, name in multiword_names %}
        when lower(trim({{ source_type }})) rlike '{{ pattern }}' then '{{ name }}'
        {%- endfor %}
        else {{ cdc_type_base(source_type) }}
    end
{% endmacro %}


{% macro cdc_type_parameters(source_type) %}
    {#- The text inside the first parentheses of a source type (`10,2` for decimal(10,2)), or ''. -#}
    regexp_extract(lower({{ source_type }}), '\\(([^)]*)\\)', 1)
{% endmacro %}


{% macro cdc_decimal_spark_type(parameters) %}
    {#-
        decimal(p,s) from a decimal source type: `decimal(10,2)`, `numeric(12)` (scale 0), Debezium's
        `org.apache.kafka.connect.data.Decimal(precision=10,scale=2)` (precision 38 when not given),
        or a bare `decimal`/`number` (precision unknown: decimal(38,18)). Precision is capped at 38;
        a scale above 38 cannot be held and gives string. `parameters` is the text inside the
        type's parentheses (cdc_type_parameters).
    -#}
    case
        when {{ parameters }} like '%scale=%'
            then case
                when try_cast(regexp_extract({{ parameters }}, 'scale=(\\d+)', 1) as int) > 38 then 'string'
                else concat(
                    'decimal(',
                    least(38, greatest(
                        coalesce(try_cast(regexp_extract({{ parameters }}, 'precision=(\\d+)', 1) as int), 38),
                        try_cast(regexp_extract({{ parameters }}, 'scale=(\\d+)', 1) as int),
                        1
                    )),
                    ',', try_cast(regexp_extract({{ parameters }}, 'scale=(\\d+)', 1) as int), ')'
                )
            end
        when {{ parameters }} rlike '^\\s*\\d+\\s*,\\s*\\d+\\s*$'
            then case
                when try_cast(trim(split_part({{ parameters }}, ',', 2)) as int) > 38 then 'string'
                else concat(
                    'decimal(',
                    least(38, greatest(
                        try_cast(trim(split_part({{ parameters }}, ',', 1)) as int),
                        try_cast(trim(split_part({{ parameters }}, ',', 2)) as int),
                        1
                    )),
                    ',', try_cast(trim(split_part({{ parameters }}, ',', 2)) as int), ')'
                )
            end
        when {{ parameters }} rlike '^\\s*\\d+\\s*$'
            then concat('decimal(', least(38, greatest(try_cast(trim({{ parameters }}) as int), 1)), ',0)')
        else 'decimal(38,18)'
    end
{% endmacro %}


{% macro cdc_source_type_codes() %}
    {#-
        The source type names cdc-lake knows (as cdc_type_name gives them), by the
        java.sql.Types code each stands for: MySQL, OceanBase (OMS light types), Oracle, PostgreSQL
        and SQL Server names, Kafka Connect's schema types and Debezium's logical types. One table
        answers both questions about a type text: its code (cdc_jdbc_type_for) and, through the
        code, the Spark type of its values (cdc_spark_type_for). Any other `io.debezium.` type is 12.
    -#}
    {{ return({
        -7: ['bit', 'io.debezium.data.bits'],
        -6: ['tinyint', 'int1', 'int8'],
        5: ['smallint', 'int2', 'int16'],
        4: [
            'int', 'integer', 'int4', 'mediumint', 'middleint', 'int3', 'year', 'int32',
            'io.debezium.time.year',
        ],
        -5: ['bigint', 'bigserial', 'serial', 'int64', 'long'],
        3: [
            'decimal', 'dec', 'fixed', 'bigdecimal', 'org.apache.kafka.connect.data.decimal',
            'io.debezium.data.variablescaledecimal',
        ],
        2: ['numeric', 'number'],
        6: ['float'],
        7: ['real', 'float4', 'binary_float', 'float32'],
        8: ['double', 'float8', 'binary_double', 'float64'],
        16: ['bool', 'boolean'],
        91: ['date', 'org.apache.kafka.connect.data.date', 'io.debezium.time.date'],
        92: [
            'time', 'timetz', 'org.apache.kafka.connect.data.time', 'io.debezium.time.time',
            'io.debezium.time.microtime', 'io.debezium.time.nanotime',
        ],
        2013: ['io.debezium.time.zonedtime'],
        93: [
            'datetime', 'timestamp', 'datetime2', 'smalldatetime', 'org.apache.kafka.connect.data.timestamp',
            'io.debezium.time.timestamp', 'io.debezium.time.microtimestamp', 'io.debezium.time.nanotimestamp',
        ],
        2014: [
            'timestamptz', 'datetimeoffset', 'zoned_datetime', 'timestamp_with_time_zone',
            'timestamp_with_local_time_zone', 'io.debezium.time.zonedtimestamp',
        ],
        1: ['char', 'nchar', 'character'],
        12: [
            'varchar', 'nvarchar', 'varchar2', 'nvarchar2', 'string', 'enum', 'set', 'uuid', 'rowid',
            'urowid', 'citext', 'varchar_ignorecase',
        ],
        -1: ['text', 'tinytext', 'mediumtext', 'longtext', 'json', 'jsonb'],
        2005: ['clob'],
        2011: ['nclob'],
        2009: ['xml'],
        -2: ['binary'],
        -3: ['varbinary', 'raw', 'bytes', 'bytea'],
        -4: ['longraw', 'long_raw'],
        2004: ['tinyblob', 'blob', 'mediumblob', 'longblob', 'bfile', 'image'],
        1111: [
            'interval', 'interval_day_to_second', 'interval_year_to_month', 'geometry', 'point',
            'linestring', 'polygon', 'multipoint', 'multilinestring', 'multipolygon',
            'geometrycollection', 'geography', 'inet', 'cidr', 'macaddr', 'money',
        ],
    }) }}
{% endmacro %}


{% macro cdc_jdbc_spark_types() %}
    {#- The Spark type of each java.sql.Types code (the 002 appendix); any other code gives string. -#}
    {{ return({
        'boolean': [16, -7],
        'int': [-6, 5, 4],
        'bigint': [-5],
        'decimal(38,18)': [2, 3],
        'float': [7],
        'double': [6, 8],
        'date': [91],
        'timestamp': [93, 2014],
        'binary': [-2, -3, -4, 2004],
    }) }}
{% endmacro %}


{% macro cdc_jdbc_type_names() %}
    {#- The name of each java.sql.Types code (the 002 appendix table, plus the JDBC 4 codes). -#}
    {{ return({
        -16: 'LONGNVARCHAR', -15: 'NCHAR', -9: 'NVARCHAR', -8: 'ROWID', -7: 'BIT', -6: 'TINYINT',
        -5: 'BIGINT', -4: 'LONGVARBINARY', -3: 'VARBINARY', -2: 'BINARY', -1: 'LONGVARCHAR', 0: 'NULL',
        1: 'CHAR', 2: 'NUMERIC', 3: 'DECIMAL', 4: 'INTEGER', 5: 'SMALLINT', 6: 'FLOAT', 7: 'REAL',
        8: 'DOUBLE', 12: 'VARCHAR', 16: 'BOOLEAN', 70: 'DATALINK', 91: 'DATE', 92: 'TIME',
        93: 'TIMESTAMP', 1111: 'OTHER', 2000: 'JAVA_OBJECT', 2001: 'DISTINCT', 2002: 'STRUCT',
        2003: 'ARRAY', 2004: 'BLOB', 2005: 'CLOB', 2006: 'REF', 2009: 'SQLXML', 2011: 'NCLOB',
        2012: 'REF_CURSOR', 2013: 'TIME_WITH_TIMEZONE', 2014: 'TIMESTAMP_WITH_TIMEZONE', 10000: 'unknown',
    }) }}
{% endmacro %}


{% macro cdc_source_type_code(base) %}
    {#- The java.sql.Types code of a base type name (cdc_source_type_codes), or null. -#}
    case
        {%- for code, names in cdc_source_type_codes().items() %}
        when {{ base }} in ('{{ names | join("', '") }}') then {{ code }}
        {%- endfor %}
        when {{ base }} like 'io.debezium.%' then 12
    end
{% endmacro %}


{% macro cdc_spark_type_of_jdbc(jdbc_code) %}
    {#- The Spark type of a java.sql.Types code (an int; cdc_jdbc_spark_types), string for any other. -#}
    case
        {%- for spark_type, codes in cdc_jdbc_spark_types().items() %}
        when {{ jdbc_code }} in ({{ codes | join(', ') }}) then '{{ spark_type }}'
        {%- endfor %}
        else 'string'
    end
{% endmacro %}


{% macro cdc_spark_type_for(source_type, jdbc_type) %}
    {#-
        The Spark type (text) that holds the values of a column with this source type text and/or
        java.sql.Types code (text or int). A recognised source type decides, through its own code
        (cdc_source_type_codes) unless one of the rules below, which read more than the name, says
        otherwise; an unrecognised one leaves it to the given code; neither gives string. See
        _typing__macros.yml for the full table.
    -#}
    {%- set lowered = 'source_type_parts.lowered' -%}
    {%- set base = 'source_type_parts.base' -%}
    {%- set parameters = 'source_type_parts.parameters' -%}
    {%- set jdbc = 'source_type_parts.jdbc' -%}
    {%- set name_code = 'source_type_parts.name_code' -%}
    {%- set parts -%}
        named_struct(
            'lowered', lower(trim({{ source_type }})),
            'base', {{ cdc_type_base(source_type) }},
            'parameters', {{ cdc_type_parameters(source_type) }},
            'jdbc', try_cast(trim(cast({{ jdbc_type }} as string)) as int),
            'name_code', {{ cdc_jdbc_type_for(source_type) }}
        )
    {%- endset -%}
    {%- set mapping -%}
    case
        {#- decimals take their precision and scale from the type's parameters #}
        when {{ base }} in (
            'decimal', 'numeric', 'dec', 'fixed', 'number', 'bigdecimal', 'org.apache.kafka.connect.data.decimal'
        ) then {{ cdc_decimal_spark_type(parameters) }}
        {#- an UNSIGNED integer needs the next wider type #}
        when {{ base }} in ('int', 'integer', 'int4') and {{ lowered }} rlike '\\bunsigned\\b' then 'bigint'
        when {{ base }} in ('bigint', 'bigserial', 'serial') and {{ lowered }} rlike '\\bunsigned\\b'
            then 'decimal(20,0)'
        {#- FLOAT(p) above 24 bits of precision is a double (MySQL, Oracle) #}
        when {{ base }} = 'float'
            then case when try_cast(trim({{ parameters }}) as int) > 24 then 'double' else 'float' end
        {#- BIT(1) is a flag, any other bit string is bytes #}
        when {{ base }} = 'bit' and trim({{ parameters }}) = '1' then 'boolean'
        when {{ base }} in ('bit', 'io.debezium.data.bits') then 'binary'
        {#- Oracle's DATE (code 93) holds a time of day #}
        when {{ base }} = 'date' and {{ jdbc }} = 93 then 'timestamp'
        when {{ base }} = 'io.debezium.time.microduration' then 'bigint'
        {#- Kafka Connect types without a Spark counterpart are text, whatever the code says #}
        when {{ name_code }} is null and ({{ base }} in ('struct', 'array', 'map') or {{ base }} like 'org.apache.kafka.connect.%')
            then 'string'
        else {{ cdc_spark_type_of_jdbc('coalesce(' ~ name_code ~ ', ' ~ jdbc ~ ')') }}
    end
    {%- endset -%}
    {{ cdc_let('source_type_parts', parts, mapping) }}
{% endmacro %}


{% macro cdc_jdbc_type_for(source_type) %}
    {#-
        The java.sql.Types code that a source type text stands for, for formats that give only the
        type text (KafkaRiverCanal `t`, OMS `__light_type`, Dataworks, Debezium `schema`, DDL). Null
        when the type text is unknown.
    -#}
    {{ cdc_let('jdbc_type_name', cdc_type_name(source_type), cdc_source_type_code('jdbc_type_name')) }}
{% endmacro %}


{% macro cdc_jdbc_type_name(jdbc_type) %}
    {#- The java.sql.Types name of a code (int or text; cdc_jdbc_type_names), or null. -#}
    case try_cast(trim(cast({{ jdbc_type }} as string)) as int)
        {%- for code, name in cdc_jdbc_type_names().items() %}
        when {{ code }} then '{{ name }}'
        {%- endfor %}
    end
{% endmacro %}
