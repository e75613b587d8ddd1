"""Write the binary sample streams in sample_data/dts_avro/ and sample_data/canal_protobuf/.

Run from the project root: `.venv/bin/python scripts/make_binary_samples.py`. Messages are built
with the producers' schemas and libraries (fastavro with dts-record.avsc, the classes generated
from canal.proto), see cdc_lake.decoders.encode. Each format gets a Kafka-shaped Parquet file and
a folder of one-message files; python/tests/test_format_binary.py lands them and asserts the
outcome.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from cdc_lake.decoders.encode import (
    canal_column,
    canal_entry_of_type,
    canal_header,
    canal_message,
    canal_row_entry,
    canal_transaction_begin,
    canal_transaction_end,
    dts_binary,
    dts_character,
    dts_datetime,
    dts_decimal,
    dts_empty,
    dts_float,
    dts_integer,
    dts_record,
    dts_text,
    dts_timestamp,
)

ROOT = Path(__file__).resolve().parents[1] / "sample_data"
T0 = 1_700_100_000  # 2023-11-16 02:00:00 UTC


def write_kafka_parquet(path: Path, values: Sequence[bytes], topic: str) -> None:
    """Kafka-shaped Parquet, as Spark's Kafka source writes it (key, value binary, topic, ...)."""
    n = len(values)
    table = pa.table(
        {
            "key": pa.array([None] * n, pa.binary()),
            "value": pa.array(values, pa.binary()),
            "topic": pa.array([topic] * n, pa.string()),
            "partition": pa.array([0] * n, pa.int32()),
            "offset": pa.array(range(n), pa.int64()),
            "timestamp": pa.array([(T0 + i) * 1000 for i in range(n)], pa.int64()),
            "timestampType": pa.array([0] * n, pa.int32()),
        }
    )
    pq.write_table(table, path)


def write_folder(path: Path, messages: Sequence[bytes], suffix: str) -> None:
    path.mkdir()
    for number, message in enumerate(messages, start=1):
        (path / f"{number:04d}{suffix}").write_bytes(message)


# --- Aliyun DTS Avro: database crm ------------------------------------------------------------------

CUSTOMER_FIELDS = [
    ("id", 3), ("name", 253), ("email", 253), ("balance", 246), ("score", 5), ("signup_ts", 7),
    ("birthday", 10), ("last_login", 12), ("avatar", 252), ("prefs", 245), ("tier", 247), ("note", 252),
]
CUSTOMERS_DDL = (
    "CREATE TABLE `customers` (`id` int NOT NULL, `name` varchar(64), `email` varchar(128), "
    "`balance` decimal(12,2), `score` double, `signup_ts` timestamp(6), `birthday` date, "
    "`last_login` datetime, `avatar` blob, `prefs` json, `tier` enum('silver','gold'), `note` text, "
    "PRIMARY KEY (`id`)) DEFAULT CHARSET=utf8mb4"
)
PLAN_FIELDS = [("code", 254), ("price", 246), ("active", 1)]


def customer(cid, name, email, balance, tier, *, charset="utf8mb4", last_login=None, note=None):
    return [
        dts_integer(str(cid)), dts_character(name, charset), dts_character(email, "utf8mb4"),
        dts_decimal(balance, 12, 2), dts_float(0.1 * cid + 0.2), dts_timestamp(T0 - 86_400 * cid, 250_000),
        dts_datetime(year=1990 + cid, month=cid, day=10 + cid),
        last_login or dts_datetime(year=2023, month=11, day=15, hour=9, minute=30, second=0),
        dts_binary(bytes([0x89, 0x50, 0x4E, 0x47, cid])), dts_text('{"lang": "en", "digest": true}'),
        dts_text(tier, "enum"), note if note is not None else dts_empty(),
    ]


def customers_record(operation, record_id, ts, txid="", **images):
    return dts_record(
        operation, "crm.customers", CUSTOMER_FIELDS, record_id=record_id, source_timestamp=ts,
        source_position=f"{4000 + record_id * 120}@12", txid=txid, primary_key=["id"], **images,
    )


def plan(code, price, active):
    return [dts_character(code, "latin1"), dts_decimal(price, 8, 2), dts_integer(active, 1)]


ALICE = customer(1, "Alice", "alice@example.com", "100.00", "silver")
ALICE_GOLD = customer(1, "Alice", "alice@example.com", "250.75", "gold", note=dts_character("VIP since 2023"))
ALICE_BACK = customer(
    1, "Alice", "alice@example.com", "250.75", "gold", note=dts_character("VIP since 2023"),
    last_login=dts_datetime(year=2023, month=11, day=16, hour=8, minute=1, second=2, millis=345_000),
)
LI_LEI = customer(2, "李雷", "lilei@example.cn", "0.10", "silver", charset="gbk")
BOB = customer(3, "Bob", "bob@example.com", "12345678.90", "silver", note=dts_character("met at expo"))

DTS_KAFKA = [
    dts_record("DDL", "crm.customers", None, after=CUSTOMERS_DDL, record_id=1, source_timestamp=T0),
    dts_record("BEGIN", None, record_id=2, source_timestamp=T0 + 10, txid="8001"),
    customers_record("INSERT", 3, T0 + 10, "8001", after=ALICE),
    customers_record("INSERT", 4, T0 + 10, "8001", after=LI_LEI),
    dts_record("COMMIT", None, record_id=5, source_timestamp=T0 + 10, txid="8001"),
    customers_record("UPDATE", 6, T0 + 60, "8002", before=ALICE, after=ALICE_GOLD),
    dts_record("HEARTBEAT", None, record_id=7, source_timestamp=T0 + 70),
    customers_record("DELETE", 8, T0 + 90, "8003", before=LI_LEI),
    dts_record("INIT", "crm.plans", PLAN_FIELDS, after=plan("basic", "9.90", "1"), record_id=9,
               source_timestamp=T0 + 100, primary_key=["code"]),
    dts_record("INIT", "crm.plans", PLAN_FIELDS, after=plan("pro", "29.00", "1"), record_id=10,
               source_timestamp=T0 + 100, primary_key=["code"]),
]
DTS_FILES = [
    customers_record("UPDATE", 11, T0 + 200, "8004", before=ALICE_GOLD, after=ALICE_BACK),
    customers_record("INSERT", 12, T0 + 210, "8005", after=BOB),
]

# --- Canal protobuf: database sales ---------------------------------------------------------------

ORDERS_DDL = (
    "CREATE TABLE `orders` (`id` bigint NOT NULL, `customer` varchar(64), `amount` decimal(12,2), "
    "`status` varchar(16), `created` datetime, PRIMARY KEY (`id`))"
)
ORDER_TYPES = {
    "id": ("bigint(20)", -5), "customer": ("varchar(64)", 12), "amount": ("decimal(12,2)", 3),
    "status": ("varchar(16)", 12), "created": ("datetime", 93), "note": ("text", 2005),
}


def head(offset, table="orders", file="mysql-bin.000042", **kw):
    return canal_header("sales", table, logfile=file, offset=offset, execute_time=(T0 + offset) * 1000, **kw)


def order_columns(values, updated=()):
    return [
        canal_column(name, value, mysql_type=ORDER_TYPES[name][0], sql_type=ORDER_TYPES[name][1],
                     is_key=name == "id", updated=name in updated, index=i)
        for i, (name, value) in enumerate(values.items())
    ]


O1 = {"id": "1", "customer": "alice", "amount": "19.90", "status": "NEW", "created": "2023-11-16 02:05:00"}
O1_PAID = {**O1, "status": "PAID"}
O2 = {"id": "2", "customer": "bob", "amount": "0.10", "status": "NEW", "created": "2023-11-16 02:05:01"}
O2_FIXED = {**O2, "amount": "1.10"}
O3 = {"id": "3", "customer": "carol", "amount": "1000000.00", "status": "NEW", "created": "2023-11-16 02:05:02"}
O4 = {"id": "4", "customer": "dave", "amount": "5.00", "status": "NEW", "created": "2023-11-16 02:20:00",
      "note": None}

CANAL_KAFKA = [
    canal_message([canal_row_entry(head(120), "CREATE", is_ddl=True, sql=ORDERS_DDL)], batch_id=101),
    canal_message(
        [
            canal_transaction_begin(head(300, "")),
            canal_row_entry(head(400), "INSERT", [([], order_columns(o)) for o in (O1, O2, O3)]),
            canal_transaction_end(head(500, ""), "9001"),
        ],
        batch_id=102,
    ),
    canal_message(
        [
            canal_transaction_begin(head(600, "")),
            canal_row_entry(head(700), "UPDATE", [(order_columns(O1), order_columns(O1_PAID, ("status",)))]),
            canal_row_entry(head(800), "DELETE", [(order_columns(O3), [])]),
            canal_transaction_end(head(900, ""), "9002"),
            canal_entry_of_type(head(950, ""), "HEARTBEAT"),
        ],
        batch_id=103,
    ),
]
CANAL_FILES = [
    canal_message(
        [
            canal_transaction_begin(head(1000, "")),
            canal_row_entry(head(1100), "UPDATE", [(order_columns(O2), order_columns(O2_FIXED, ("amount",)))]),
            canal_transaction_end(head(1200, ""), "9003"),
        ],
        batch_id=104,
    ),
    canal_message(
        [
            canal_row_entry(head(1300), "ALTER", is_ddl=True, sql="ALTER TABLE `orders` ADD COLUMN `note` text"),
            canal_transaction_begin(head(1400, "")),
            canal_row_entry(head(1500), "INSERT", [([], order_columns(O4))]),
            canal_transaction_end(head(1600, ""), "9004"),
        ],
        batch_id=105,
    ),
]


def main() -> None:
    for format_id, kafka, files, topic, name, suffix in (
        ("dts_avro", DTS_KAFKA, DTS_FILES, "dts_crm", "crm", ".avro"),
        ("canal_protobuf", CANAL_KAFKA, CANAL_FILES, "canal_sales", "sales", ".bin"),
    ):
        folder = ROOT / format_id
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        write_kafka_parquet(folder / f"{name}_kafka.parquet", kafka, topic)
        write_folder(folder / f"{name}_files", files, suffix)
        print(f"{folder}: {len(kafka)} Kafka record(s), {len(files)} one-message file(s)")


if __name__ == "__main__":
    main()
