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


{% macro cdc_spark_type_for(source_type, jdbc_type) %}
    {#-
        The Spark type (text) that holds the values of a column with this source type text and/or
        java.sql.Types code (text or int). The source type wins when it is recognised; the JDBC code
        decides otherwise; neither gives string. See _typing__macros.yml for the full table.
    -#}
    {%- set lowered = 'source_type_parts.lowered' -%}
    {%- set base = 'source_type_parts.base' -%}
    {%- set parameters = 'source_type_parts.parameters' -%}
    {%- set jdbc = 'source_type_parts.jdbc' -%}
    {%- set parts -%}
        named_struct(
            'lowered', lower(trim({{ source_type }})),
            'base', {{ cdc_type_base(source_type) }},
            'parameters', {{ cdc_type_parameters(source_type) }},
            'jdbc', try_cast(trim(cast({{ jdbc_type }} as string)) as int)
        )
    {%- endset -%}
    {%- set mapping -%}
    case
        {#- Kafka Connect and Debezium logical types (Debezium's column_types) #}
        when {{ base }} = 'org.apache.kafka.connect.data.decimal' then {{ cdc_decimal_spark_type(parameters) }}
        when {{ base }} = 'io.debezium.data.variablescaledecimal' then 'decimal(38,18)'
        when {{ base }} in ('org.apache.kafka.connect.data.date', 'io.debezium.time.date') then 'date'
        when {{ base }} in (
            'org.apache.kafka.connect.data.timestamp', 'io.debezium.time.timestamp',
            'io.debezium.time.microtimestamp', 'io.debezium.time.nanotimestamp',
            'io.debezium.time.zonedtimestamp'
        ) then 'timestamp'
        when {{ base }} = 'io.debezium.time.year' then 'int'
        when {{ base }} = 'io.debezium.time.microduration' then 'bigint'
        when {{ base }} = 'io.debezium.data.bits' then 'binary'
        when {{ base }} like 'org.apache.kafka.connect.%' or {{ base }} like 'io.debezium.%' then 'string'
        when {{ base }} in ('int8', 'int16', 'int32') then 'int'
        when {{ base }} = 'long' and {{ lowered }} rlike '^long\\s+raw' then 'binary'
        when {{ base }} in ('int64', 'long') then 'bigint'
        when {{ base }} = 'float32' then 'float'
        when {{ base }} = 'float64' then 'double'
        when {{ base }} in ('bytes', 'bytea') then 'binary'
        when {{ base }} in ('struct', 'array', 'map') then 'string'
        {#- SQL type names (MySQL, OceanBase/OMS light types, Oracle, PostgreSQL) #}
        when {{ base }} in ('bool', 'boolean') then 'boolean'
        when {{ base }} = 'bit' and trim({{ parameters }}) = '1' then 'boolean'
        when {{ base }} = 'bit' then 'binary'
        when {{ base }} in ('tinyint', 'smallint', 'mediumint', 'middleint', 'int1', 'int2', 'int3', 'year')
            then 'int'
        when {{ base }} in ('int', 'integer', 'int4')
            then case when {{ lowered }} rlike '\\bunsigned\\b' then 'bigint' else 'int' end
        when {{ base }} in ('bigint', 'bigserial', 'serial')
            then case when {{ lowered }} rlike '\\bunsigned\\b' then 'decimal(20,0)' else 'bigint' end
        when {{ base }} in ('decimal', 'numeric', 'dec', 'fixed', 'number', 'bigdecimal')
            then {{ cdc_decimal_spark_type(parameters) }}
        when {{ base }} = 'float'
            then case when try_cast(trim({{ parameters }}) as int) > 24 then 'double' else 'float' end
        when {{ base }} in ('real', 'float4', 'binary_float') then 'float'
        when {{ base }} in ('double', 'float8', 'binary_double') then 'double'
        when {{ base }} = 'date' and {{ jdbc }} = 93 then 'timestamp'
        when {{ base }} = 'date' then 'date'
        when {{ base }} in (
            'datetime', 'timestamp', 'timestamptz', 'datetime2', 'smalldatetime', 'datetimeoffset',
            'zoned_datetime', 'timestamp_with_time_zone', 'timestamp_with_local_time_zone'
        ) then 'timestamp'
        when {{ base }} in (
            'tinyblob', 'blob', 'mediumblob', 'longblob', 'binary', 'varbinary', 'raw', 'longraw',
            'bfile', 'image', 'long_raw'
        ) then 'binary'
        when {{ base }} in (
            'char', 'varchar', 'nchar', 'nvarchar', 'varchar2', 'nvarchar2', 'character', 'text',
            'tinytext', 'mediumtext', 'longtext', 'clob', 'nclob', 'string', 'json', 'jsonb', 'enum',
            'set', 'uuid', 'xml', 'rowid', 'urowid', 'time', 'timetz', 'interval',
            'interval_day_to_second', 'interval_year_to_month', 'geometry', 'point', 'linestring',
            'polygon', 'multipoint', 'multilinestring', 'multipolygon', 'geometrycollection', 'geography',
            'inet', 'cidr', 'macaddr', 'money', 'citext', 'varchar_ignorecase'
        ) then 'string'
        {#- otherwise the java.sql.Types code (002 appendix) #}
        when {{ jdbc }} = 16 then 'boolean'
        when {{ jdbc }} = -7 then 'boolean'
        when {{ jdbc }} in (-6, 5, 4) then 'int'
        when {{ jdbc }} = -5 then 'bigint'
        when {{ jdbc }} in (2, 3) then 'decimal(38,18)'
        when {{ jdbc }} = 7 then 'float'
        when {{ jdbc }} in (6, 8) then 'double'
        when {{ jdbc }} = 91 then 'date'
        when {{ jdbc }} in (93, 2014) then 'timestamp'
        when {{ jdbc }} in (-2, -3, -4, 2004) then 'binary'
        else 'string'
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
    {%- set base = 'jdbc_type_base' -%}
    {%- set mapping -%}
    case
        when {{ base }} = 'org.apache.kafka.connect.data.decimal' then 3
        when {{ base }} = 'io.debezium.data.variablescaledecimal' then 3
        when {{ base }} in ('org.apache.kafka.connect.data.date', 'io.debezium.time.date') then 91
        when {{ base }} in (
            'org.apache.kafka.connect.data.time', 'io.debezium.time.time', 'io.debezium.time.microtime',
            'io.debezium.time.nanotime'
        ) then 92
        when {{ base }} = 'io.debezium.time.zonedtime' then 2013
        when {{ base }} in (
            'org.apache.kafka.connect.data.timestamp', 'io.debezium.time.timestamp',
            'io.debezium.time.microtimestamp', 'io.debezium.time.nanotimestamp'
        ) then 93
        when {{ base }} = 'io.debezium.time.zonedtimestamp' then 2014
        when {{ base }} = 'io.debezium.time.year' then 4
        when {{ base }} = 'io.debezium.data.bits' then -7
        when {{ base }} like 'io.debezium.%' then 12
        when {{ base }} = 'int8' then -6
        when {{ base }} = 'int16' then 5
        when {{ base }} = 'int32' then 4
        when {{ base }} in ('int64', 'long') then -5
        when {{ base }} = 'float32' then 7
        when {{ base }} = 'float64' then 8
        when {{ base }} in ('bytes', 'bytea') then -3
        when {{ base }} in ('bool', 'boolean') then 16
        when {{ base }} = 'bit' then -7
        when {{ base }} in ('tinyint', 'int1') then -6
        when {{ base }} in ('smallint', 'int2') then 5
        when {{ base }} in ('mediumint', 'middleint', 'int3', 'int', 'integer', 'int4', 'year') then 4
        when {{ base }} in ('bigint', 'bigserial', 'serial') then -5
        when {{ base }} in ('decimal', 'dec', 'fixed', 'bigdecimal') then 3
        when {{ base }} in ('numeric', 'number') then 2
        when {{ base }} = 'float' then 6
        when {{ base }} in ('real', 'float4', 'binary_float') then 7
        when {{ base }} in ('double', 'float8', 'binary_double') then 8
        when {{ base }} = 'date' then 91
        when {{ base }} in ('time', 'timetz') then 92
        when {{ base }} in ('datetime', 'timestamp', 'datetime2', 'smalldatetime') then 93
        when {{ base }} in (
            'timestamptz', 'datetimeoffset', 'zoned_datetime', 'timestamp_with_time_zone',
            'timestamp_with_local_time_zone'
        ) then 2014
        when {{ base }} in ('char', 'nchar', 'character') then 1
        when {{ base }} in (
            'varchar', 'nvarchar', 'varchar2', 'nvarchar2', 'string', 'enum', 'set', 'uuid', 'rowid',
            'urowid', 'citext', 'varchar_ignorecase'
        ) then 12
        when {{ base }} in ('text', 'tinytext', 'mediumtext', 'longtext', 'json', 'jsonb') then -1
        when {{ base }} in ('clob') then 2005
        when {{ base }} in ('nclob') then 2011
        when {{ base }} = 'xml' then 2009
        when {{ base }} = 'binary' then -2
        when {{ base }} in ('varbinary', 'raw') then -3
        when {{ base }} in ('tinyblob', 'blob', 'mediumblob', 'longblob', 'bfile', 'image') then 2004
        when {{ base }} in ('longraw', 'long_raw') then -4
        when {{ base }} in (
            'interval', 'interval_day_to_second', 'interval_year_to_month', 'geometry', 'point',
            'linestring', 'polygon', 'multipoint', 'multilinestring', 'multipolygon',
            'geometrycollection', 'geography', 'inet', 'cidr', 'macaddr', 'money'
        ) then 1111
    end
    {%- endset -%}
    {{ cdc_let('jdbc_type_base', cdc_type_base(source_type), mapping) }}
{% endmacro %}


{% macro cdc_jdbc_type_name(jdbc_type) %}
    {#- The java.sql.Types name of a code (the 002 appendix table, plus the JDBC 4 codes). -#}
    case try_cast(trim(cast({{ jdbc_type }} as string)) as int)
        when 10000 then 'unknown'
        when 2003 then 'ARRAY'
        when -5 then 'BIGINT'
        when -2 then 'BINARY'
        when -7 then 'BIT'
        when 2004 then 'BLOB'
        when 16 then 'BOOLEAN'
        when 1 then 'CHAR'
        when 2005 then 'CLOB'
        when 70 then 'DATALINK'
        when 91 then 'DATE'
        when 3 then 'DECIMAL'
        when 2001 then 'DISTINCT'
        when 8 then 'DOUBLE'
        when 6 then 'FLOAT'
        when 4 then 'INTEGER'
        when 2000 then 'JAVA_OBJECT'
        when -4 then 'LONGVARBINARY'
        when -1 then 'LONGVARCHAR'
        when 0 then 'NULL'
        when 2 then 'NUMERIC'
        when 1111 then 'OTHER'
        when 7 then 'REAL'
        when 2006 then 'REF'
        when 5 then 'SMALLINT'
        when 2002 then 'STRUCT'
        when 92 then 'TIME'
        when 93 then 'TIMESTAMP'
        when -6 then 'TINYINT'
        when -3 then 'VARBINARY'
        when 12 then 'VARCHAR'
        when -8 then 'ROWID'
        when -15 then 'NCHAR'
        when -9 then 'NVARCHAR'
        when -16 then 'LONGNVARCHAR'
        when 2011 then 'NCLOB'
        when 2009 then 'SQLXML'
        when 2012 then 'REF_CURSOR'
        when 2013 then 'TIME_WITH_TIMEZONE'
        when 2014 then 'TIMESTAMP_WITH_TIMEZONE'
    end
{% endmacro %}
