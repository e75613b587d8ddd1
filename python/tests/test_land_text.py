"""Landing text files, row by row, against a reference written in Python: line numbers across many
Spark partitions, carriage returns, blank lines, bytes that are not UTF-8 and their reasons, the
hash and the detected format; messages that are not JSON land as they are, without a reason
(staging explains them). A Kafka dump's value column of type string must land as one of type
binary holding the same bytes."""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import re
from pathlib import Path

import pytest

from cdc_lake import land as land_module
from cdc_lake.exact_json import explain, explain_utf8
from conftest import as_bytes, write_jsonl, write_kafka_parquet
from test_detection import previous_detection

JAVA_LINE_TERMINATORS = ("\r\n", "\n", "\r", "\u0085", "\u2028", "\u2029")


def java_strip_cr(text: str) -> str:
    """regexp_replace(text, '\\r$', '') in Java: `$` also matches before a final line terminator."""
    last = len(text) - 1
    drop = {i for i, c in enumerate(text) if c == "\r" and (i == last or text[i + 1 :] in JAVA_LINE_TERMINATORS)}
    return "".join(c for i, c in enumerate(text) if i not in drop)


def expected_rows(path: Path) -> list[dict]:
    """What landing `path` (format auto) must give, one dict per message."""
    data = path.read_bytes()
    if data.startswith(b"\xef\xbb\xbf"):  # Hadoop's line reader drops a UTF-8 BOM at the start
        data = data[3:]
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    rows = []
    for number, raw in enumerate(lines, 1):
        undecodable = explain_utf8(raw) is not None
        if undecodable:
            # lands with its bytes (less a final carriage return) and the reason; its format is
            # detected on the text Java decodes it to (U+FFFD for each bad byte)
            data = raw[:-1] if raw.endswith(b"\r") else raw
            text = data.decode("utf-8", errors="replace")
        else:
            text = java_strip_cr(raw.decode("utf-8"))
            data = text.encode()
            if text.strip(" ") == "":
                continue
        looks_like_json = re.match(r"\s*[\[{]", text, re.ASCII) is not None
        rows.append(
            {
                "message_index": number,
                "message_text": None if undecodable else text,
                "message_bytes": data if undecodable else None,
                "decode_error": explain_utf8(data),
                "parse_error": None,
                "message_hash": hashlib.sha256(data).hexdigest(),
                "message_format": previous_detection(text) if looks_like_json else "unknown",
            }
        )
    return rows


def messy_file(path: Path, lines: int = 400, seed: int = 3) -> Path:
    rng = random.Random(seed)
    good = [
        json.dumps({"data": [{"id": "1", "name": "小明"}], "database": "d", "table": "t", "type": "INSERT"}),
        json.dumps({"source": {"db": "d", "table": "t"}, "op": "c", "after": {"id": 1}, "ts_ms": 5}),
        '{"recordType": "INSERT", "postStruct": {"a": 1}}',
        '{"meta" : {"op": "I"}, "op" : "I"}',
        '[{"database": "d", "type": "DELETE"}]',
        '{"a": 1, // a comment\t "b": [1, 2,], }',  # JSON once normalized
    ]
    bad = ['{"a": 1', "hello", '{"a" 1}', '{"database": "d", "type": "X" "b": 1}', "\t", '{"a": "open}']
    ends = [b"\n"] * 8 + [b"\r\n", b"\r\r\n", b"\r \n"]
    out = [b"\xef\xbb\xbf" + good[0].encode() + b"\n"]
    for _ in range(lines):
        pick = rng.random()
        if pick < 0.7:
            text = rng.choice(good).encode()
        elif pick < 0.85:
            text = rng.choice(bad).encode()
        elif pick < 0.9:
            text = b'{"database": "d", "type": "\xff\xfe", "x": "\xc3("}'  # not UTF-8
        else:
            text = rng.choice([b"", b"   ", b"\r"])
        out.append(text + rng.choice(ends))
    # a carriage return before a last line terminator of Java's (not JSON: the reasons agree)
    out.append(good[0].encode() + "\r\u2028\n".encode())
    out.append(good[1].encode())  # no newline at the end
    path.write_bytes(b"".join(out))
    return path


def landed(lake, path: Path) -> list[dict]:
    rows = lake.rows(
        "select message_index, message_text, message_bytes, decode_error, parse_error, message_hash, "
        f"message_format from {{schema}}_raw.raw_messages where source_uri = '{path}' order by message_index"
    )
    return [{**r, "message_bytes": None if r["message_bytes"] is None else bytes(r["message_bytes"])} for r in rows]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("land_text")
    return [messy_file(tmp / "a.jsonl"), messy_file(tmp / "b.txt", lines=250, seed=4)]


@pytest.fixture
def small_splits(lake):
    """Files split into many Spark partitions, so that line numbers cross partition boundaries."""
    lake.spark.conf.set("spark.sql.files.maxPartitionBytes", "1500")
    yield
    lake.spark.conf.unset("spark.sql.files.maxPartitionBytes")


def test_the_files_hold_what_the_tests_need(files):
    rows = expected_rows(files[0])
    assert any(r["message_text"] and explain(r["message_text"]) for r in rows)  # not JSON
    assert any(r["decode_error"] for r in rows)
    assert {r["message_format"] for r in rows} >= {"canal_json", "debezium_json", "oms_default", "oms_shareplex"}
    assert files[0].stat().st_size > 10 * 1500


def test_text_landing_matches_the_reference(lake, files, small_splits):
    lake.scenario("land_text")
    report = lake.land(files, "auto")
    assert report.landed == {str(f): len(expected_rows(f)) for f in files}
    for path in files:
        assert landed(lake, path) == expected_rows(path)


def test_a_file_spark_reads_whole_is_numbered_without_a_first_pass(lake, tmp_path, small_splits, monkeypatch):
    """A plain file no larger than Spark's smallest split (1500 bytes here) and a gzip file (Spark
    cannot split it) are one partition each: their lines are numbered without the first pass over
    the text; a larger plain file in the same landing still gets it."""
    small = messy_file(tmp_path / "small.jsonl", lines=8, seed=5)
    large = messy_file(tmp_path / "large.jsonl", lines=250, seed=6)
    packed = tmp_path / "packed.jsonl.gz"
    packed.write_bytes(gzip.compress(large.read_bytes()))
    assert small.stat().st_size <= 1500 < 3 * 1500 < large.stat().st_size  # large: several partitions
    scanned: list[Path] = []
    scan = land_module._scan_text_inputs

    def recorded_scan(spark, items, *, say):
        scanned.extend(item.path for item in items)
        return scan(spark, items, say=say)

    monkeypatch.setattr(land_module, "_scan_text_inputs", recorded_scan)
    lake.scenario("land_text_whole")
    lake.land([small, large, packed], "auto")
    assert scanned == [large]
    assert landed(lake, small) == expected_rows(small)
    assert landed(lake, packed) == landed(lake, large) == expected_rows(large)


def test_the_counts_taken_while_writing_are_the_tables(lake, tmp_path, monkeypatch):
    """A landing's report (messages per input and per format) comes from the write itself
    (`_observed_counts`), and equals what the landing table holds; counts that do not add up (a
    message of a source or format the observation does not name) are read back instead."""
    files = [messy_file(tmp_path / "one.jsonl", lines=60, seed=8), messy_file(tmp_path / "two.txt", lines=30, seed=9)]
    observed: list[dict[str, int]] = []
    counts = land_module._observed_counts

    def recorded_counts(values, sources):
        observed.append(values)
        return counts(values, sources)

    monkeypatch.setattr(land_module, "_observed_counts", recorded_counts)
    lake.scenario("land_text_counts")
    report = lake.land(files, "auto")
    assert len(observed) == 1
    table = lake.rows(
        "select source_uri, message_format, count(*) as n from {schema}_raw.raw_messages group by 1, 2"
    )
    assert report.landed == {str(f): sum(r["n"] for r in table if r["source_uri"] == str(f)) for f in files}
    assert report.by_format == {fmt: sum(r["n"] for r in table if r["message_format"] == fmt)
                                for fmt in {r["message_format"] for r in table}}
    assert len(report.by_format) > 2 and report.reused_offsets == 0
    assert counts(observed[0], [str(files[0])]) is None  # the other file's messages: read back


def test_a_file_without_a_failure_and_an_empty_file(lake, tmp_path):
    lake.scenario("land_text_clean")
    clean = tmp_path / "clean.jsonl"
    clean.write_text('{"database": "d", "type": "INSERT"}\n\n{"database": "d", "type": "DELETE"}\n')
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    report = lake.land([clean, empty], "canal_json")
    assert report.landed == {str(clean): 2}
    rows = lake.rows("select message_index, parse_error, message_format from {schema}_raw.raw_messages order by 1")
    assert rows == [
        {"message_index": 1, "parse_error": None, "message_format": "canal_json"},
        {"message_index": 3, "parse_error": None, "message_format": "canal_json"},
    ]


def test_a_kafka_dump_with_a_string_value_column_lands_as_one_with_a_binary_one(lake, tmp_path):
    """The same bytes in a value column of type string and of type binary land alike: text when
    they are UTF-8, else the bytes exactly (a string column can hold bytes that are not UTF-8)."""
    values = [
        '{"data":[{"id":"1","name":"小明"}],"database":"d","table":"t","type":"INSERT","pkNames":["id"]}',
        b'{"data":[{"id":"7","name":"\xff\xfe"}],"database":"d","table":"t","type":"INSERT","pkNames":["id"]}',
        b"\x00\xff not JSON and not UTF-8",
        "not JSON",
        '{"before":null,"after":{"id":1},"op":"c","source":{"db":"d","table":"t","ts_ms":1},"ts_ms":1}',
    ]
    for format_id in ("auto", "canal_json"):
        lake.scenario(f"land_kafka_string_{format_id}")
        binary = write_kafka_parquet(tmp_path / f"binary_{format_id}.parquet", values, topic="binary")
        string = write_kafka_parquet(
            tmp_path / f"string_{format_id}.parquet", values, topic="string", string_values=True
        )
        lake.land([binary, string], format_id)
        from_binary, from_string = landed(lake, binary), landed(lake, string)
        assert from_string == from_binary
        # every value kept as bytes is kept exactly, and the two that are not UTF-8 are among them
        kept = {r["message_index"]: r["message_bytes"] for r in from_binary if r["message_bytes"] is not None}
        assert kept.keys() >= {1, 2}, format_id
        assert all(raw == as_bytes(values[index]) for index, raw in kept.items()), format_id
        assert from_binary[1]["decode_error"].startswith("not valid UTF-8 text at byte offset 27 (bytes ff fe")


def _with_headers(path, headers_type, headers):
    """Rewrite the Kafka dump at `path` with a `headers` column of `headers_type` (pyarrow)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    pq.write_table(table.append_column("headers", pa.array(headers, headers_type)), path)
    return path


def test_the_headers_of_a_kafka_dump_are_kept(lake, tmp_path):
    """A dump's `headers` column (Spark's Kafka source writes array<struct<key,value>>; a map is
    taken too) lands in kafka_headers, in order; a text input of the same landing has none."""
    import pyarrow as pa

    message = '{"data":[{"id":"1"}],"database":"d","table":"t","type":"INSERT","pkNames":["id"]}'
    entries = pa.list_(pa.struct([("key", pa.string()), ("value", pa.binary())]))
    array_dump = _with_headers(
        write_kafka_parquet(tmp_path / "array.parquet", [message, message], topic="a"), entries,
        [[{"key": "trace", "value": b"\x00\x01"}, {"key": "trace", "value": b"2"}], None],
    )
    map_dump = _with_headers(
        write_kafka_parquet(tmp_path / "map.parquet", [message], topic="m"), pa.map_(pa.string(), pa.string()),
        [[("origin", "dts")]],
    )
    text = write_jsonl(tmp_path / "plain.jsonl", [message])
    lake.scenario("land_dump_headers")
    lake.land([array_dump, map_dump, text], "canal_json")
    assert lake.rows(
        "select kafka_topic, kafka_offset, kafka_headers from {schema}_raw.raw_messages order by 1 nulls last, 2"
    ) == [
        {"kafka_topic": "a", "kafka_offset": 0,
         "kafka_headers": [{"key": "trace", "value": b"\x00\x01"}, {"key": "trace", "value": b"2"}]},
        {"kafka_topic": "a", "kafka_offset": 1, "kafka_headers": None},
        {"kafka_topic": "m", "kafka_offset": 0, "kafka_headers": [{"key": "origin", "value": b"dts"}]},
        {"kafka_topic": None, "kafka_offset": None, "kafka_headers": None},
    ]


def test_a_kafka_dump_with_headers_of_another_type_is_refused(lake, tmp_path):
    import pyarrow as pa

    from cdc_lake.land import LandingError

    dump = _with_headers(write_kafka_parquet(tmp_path / "odd.parquet", ["{}"]), pa.string(), ["trace=1"])
    lake.scenario("land_dump_odd_headers")
    with pytest.raises(LandingError, match=r"odd.parquet: column headers must be array<struct<key:string,"
                                           r"value:binary>> .* not string; rename the column"):
        lake.land([dump], "canal_json")
    assert lake.rows("select count(*) as n from {schema}_raw.raw_messages") == [{"n": 0}]


def test_hash_of_the_text_bytes_is_the_hash_of_its_utf8_encoding(lake):
    """message_hash hashes the text's own bytes: for UTF-8 text, what encode(text, 'UTF-8') gives."""
    texts = ["", "abc", "小明 Émile", "\u0000\ufffe\uffff", "😀 \U0010ffff", "\ufffd", "a\r\nb"]
    frame = lake.spark.createDataFrame([(t,) for t in texts], "t string")
    rows = frame.selectExpr(
        "is_valid_utf8(t) as valid", "sha2(cast(t as binary), 256) as raw", "sha2(encode(t, 'UTF-8'), 256) as encoded"
    ).collect()
    assert all(r["valid"] and r["raw"] == r["encoded"] for r in rows)


def test_inputs_are_hashed_while_spark_starts(tmp_path):
    """The source hash (what makes a re-landing a no-op): a file's content; a folder's file names
    and contents, in name order. Computed in a thread, errors included."""
    file = tmp_path / "m.jsonl"
    file.write_bytes(b'{"a": 1}\n' * 1000)
    folder = tmp_path / "binary"
    (folder / "sub").mkdir(parents=True)
    (folder / "b.bin").write_bytes(b"\x01\x02")
    (folder / "sub" / "a.bin").write_bytes(b"\x03")
    (folder / ".hidden").write_bytes(b"ignored")
    hashing = land_module._Hashing([land_module._check_input(str(p), "auto") for p in (file, folder)])
    folder_digest = hashlib.sha256(b"b.bin\x01\x02" + b"sub/a.bin\x03").hexdigest()
    assert hashing.result() == [
        land_module.LandingInput(
            file, "text", hashlib.sha256(file.read_bytes()).hexdigest(), size=9000, lines=1000,
            signature=land_module.input_signature(file),
        ),
        land_module.LandingInput(
            folder, "binary_folder", folder_digest, files=(folder / "b.bin", folder / "sub" / "a.bin"),
            signature=land_module.input_signature(folder),
        ),
    ]
    # what the inputs looked like (the landings log keeps it): each file's size, mtime and inode
    stat = (folder / "sub" / "a.bin").stat()
    assert json.loads(hashing.result()[1].signature)[1] == ["sub/a.bin", 1, stat.st_mtime_ns, stat.st_ino]
    assert land_module.classify(str(file), "auto") == hashing.result()[0]
    gone = land_module._check_input(str(file), "auto")
    file.unlink()
    with pytest.raises(FileNotFoundError):
        land_module._Hashing([gone]).result()


@pytest.mark.parametrize("column", ["topic", "partition", "offset"])
@pytest.mark.parametrize("statistics", [True, False], ids=["footer_statistics", "no_statistics"])
def test_a_kafka_dump_whose_records_lack_an_id_is_refused(lake, tmp_path, column, statistics):
    """Records without a topic, partition or offset cannot be told apart (five records with no
    offset landed as one message): the input is refused, saying how many, and nothing lands. The
    dump has Kafka's nested headers first, so its leaf columns are not its top-level columns."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from cdc_lake.land import LandingError

    path = write_kafka_parquet(tmp_path / "dump.parquet", ['{"a": 1}'] * 5, topic="t")
    table = pq.read_table(path)
    position = table.schema.get_field_index(column)
    holes = pa.array([None, None, None, None, None], table.schema.field(column).type)
    headers = pa.array([[{"key": "h", "value": b"v"}]] * 5, pa.list_(pa.struct([("key", pa.string()), ("value", pa.binary())])))
    table = table.set_column(position, column, holes).add_column(0, "headers", headers)
    pq.write_table(table, path, write_statistics=statistics)
    lake.scenario(f"land_kafka_without_{column}")
    with pytest.raises(LandingError, match=rf"5 without a {column} of 5 record\(s\); every Kafka record needs"):
        lake.land([path], "canal_json")
    assert not lake.spark.catalog.tableExists(f"{lake.schema}_raw.raw_messages")


def raw_rows(lake, columns: str = "source_uri, message_index, message_text") -> list[dict]:
    return lake.rows(f"select {columns} from {{schema}}_raw.raw_messages order by landing_seq, message_index")


def test_a_file_that_grew_lands_its_new_lines_only(lake, tmp_path):
    """An append-only sink adds lines to a landed file: the next landing lands the lines after the
    landed ones, numbered on (a file's lines landed once each); a file continued inside its last,
    unterminated line is refused alone; a file whose landed start changed is a new input."""
    lake.scenario("land_text_growing")
    grows = tmp_path / "grows.jsonl"
    grows.write_text('{"a": 1}\n{"a": 2}\n')
    assert lake.land([grows], "canal_json").landed == {str(grows): 2}
    with grows.open("a") as file:
        file.write('\n{"a": 3}\n{"a": 4}')  # a blank line, and a last line without its newline
    assert lake.land([grows], "canal_json").landed == {str(grows): 2}
    with grows.open("a") as file:
        file.write('\n{"a": 5}\n')  # the unterminated line ends: lines 6 on are new
    assert lake.land([grows], "canal_json").landed == {str(grows): 1}
    assert lake.land([grows], "canal_json").skipped == [str(grows)]
    assert [(r["message_index"], r["message_text"]) for r in raw_rows(lake)] == [
        (1, '{"a": 1}'), (2, '{"a": 2}'), (4, '{"a": 3}'), (5, '{"a": 4}'), (6, '{"a": 5}')
    ]

    cut = tmp_path / "cut.jsonl"
    cut.write_text('{"c": 1}\n{"c": ')
    lake.land([cut], "canal_json")
    cut.write_text('{"c": 1}\n{"c": 2}\n')
    other = tmp_path / "other.jsonl"
    other.write_text('{"b": 1}\n')
    report = lake.land([cut, other], "canal_json")
    assert report.landed == {str(other): 1}
    assert report.refused[str(cut)].startswith(
        "it grew since landing 4, which landed its last line 2 without a newline"
    )

    grows.write_text('{"a": 0}\n{"a": 2}\n{"a": 3}\n')  # rewritten: the landed start differs
    said: list[str] = []
    from cdc_lake.land import land

    report = land([str(grows)], "canal_json", spark=lake.spark, say=said.append)
    assert report.landed == {str(grows): 3}
    assert (
        f"{grows}: changed since it was landed (its start differs from every landing of it): "
        "landed whole as a new input"
    ) in said


def test_a_gzipped_text_file_lands_and_a_broken_one_is_refused_alone(lake, tmp_path):
    import gzip

    lake.scenario("land_text_gzip")
    lines = '{"a": 1}\n\n{"a": 2}\n'
    packed = tmp_path / "m.jsonl.gz"
    packed.write_bytes(gzip.compress(lines.encode()))
    broken = tmp_path / "broken.ndjson.gz"
    broken.write_bytes(gzip.compress(lines.encode() * 50)[:-30])
    plain = tmp_path / "plain.jsonl"
    plain.write_text(lines)
    report = lake.land([packed, broken, plain], "canal_json")
    assert report.landed == {str(packed): 2, str(plain): 2}
    assert report.refused == {str(broken): "a truncated gzip file (it ends before its compressed data does)"}
    assert [(r["message_index"], r["message_text"]) for r in raw_rows(lake) if r["source_uri"] == str(packed)] == [
        (1, '{"a": 1}'), (3, '{"a": 2}')
    ]


def test_a_folder_is_listed_once_for_its_hash_and_its_landing(lake, tmp_path):
    """The files Spark would skip (under _x/ or .x/, *._COPYING_) are neither hashed nor landed, and
    the landing says so; links are followed to each real file or folder once, so a link loop ends."""
    from pathlib import Path as P

    folder = tmp_path / "dump"
    (folder / "sub").mkdir(parents=True)
    write_kafka_parquet(folder / "a.parquet", ['{"a": 1}', '{"a": 2}'], topic="t")
    write_kafka_parquet(folder / "sub" / "b[1].parquet", ['{"b": 1}'], topic="u")
    for hidden in ("_temporary/c.parquet", ".staging/c.parquet", "c.parquet._COPYING_"):
        (folder / hidden).parent.mkdir(exist_ok=True)
        write_kafka_parquet(folder / hidden, ['{"hidden": 1}'], topic="hidden")
    (folder / "sub" / "loop").symlink_to(folder)
    (folder / "again.parquet").symlink_to(folder / "a.parquet")
    checked = land_module._check_input(str(folder), "canal_json")
    assert checked.files == (folder / "a.parquet", folder / "sub" / "b[1].parquet")
    assert [entry.split(" (")[0] for entry in checked.left_out] == [
        ".staging", "_temporary", "again.parquet", "c.parquet._COPYING_", "sub/loop"
    ]
    digest = hashlib.sha256()
    for name in ("a.parquet", "sub/b[1].parquet"):
        digest.update(name.encode() + (folder / P(name)).read_bytes())
    assert checked.source_hash() == digest.hexdigest()

    lake.scenario("land_folder_listing")
    said: list[str] = []
    from cdc_lake.land import land

    report = land([str(folder)], "canal_json", spark=lake.spark, say=said.append)
    assert report.landed == {str(folder): 3}
    assert sorted(r["kafka_topic"] for r in raw_rows(lake, "kafka_topic")) == ["t", "t", "u"]
    assert any(line.startswith(f"{folder}: left out 5 entr(ies): .staging (hidden") for line in said)

    binary = tmp_path / "binary"
    binary.mkdir()
    (binary / "m.bin").write_bytes(b"\x01\x02")
    (binary / "loop").symlink_to(binary)
    lake.scenario("land_folder_loop")
    assert lake.land([binary], "canal_protobuf").landed == {str(binary): 1}


def test_a_reused_kafka_offset_with_other_bytes_lands_flagged(lake, tmp_path):
    """Two dumps of one topic in one landing, offset 0 with the same bytes (a re-delivery: once),
    offset 1 with other bytes (a re-created topic: both land, the second flagged, its own id)."""
    lake.scenario("land_kafka_reused_offset")
    first = write_kafka_parquet(tmp_path / "first.parquet", ['{"a": 0}', '{"a": 1}'], topic="t")
    second = write_kafka_parquet(tmp_path / "second.parquet", ['{"a": 0}', '{"b": 1}'], topic="t")
    report = lake.land([first, second], "canal_json")
    assert report.total == 3 and report.reused_offsets == 1
    rows = raw_rows(lake, "message_id, kafka_offset, is_kafka_offset_reused, message_text")
    reused_id = "t/0/1#" + hashlib.sha256(b'{"b": 1}').hexdigest()[:16]
    assert sorted((r["message_id"], r["is_kafka_offset_reused"], r["message_text"]) for r in rows) == [
        ("t/0/0", False, '{"a": 0}'), ("t/0/1", False, '{"a": 1}'), (reused_id, True, '{"b": 1}')
    ]
    # the same records in another dump (another file: keys added): re-deliveries, nothing lands
    copy = write_kafka_parquet(tmp_path / "copy.parquet", ['{"a": 0}', '{"b": 1}'], topic="t", keys=["k", "k"])
    assert lake.land([copy], "canal_json").total == 0
