"""Write the demo streams sample_data/{kafka_river_canal,cloudcanal_json,ckafka_format_one}/*.jsonl.

Run from the project root: .venv/bin/python scripts/make_river_cloudcanal_ckafka_samples.py
Each stream is a small, realistic source database: a few tables, inserts, updates, deletes, a key change,
a DDL (KafkaRiverCanal has no DDL events: a column appears mid-stream instead), and a few bare
JSON numbers whose exact text the lake keeps (0.10, 12345678901234567890.1234567890).
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "sample_data"


def write(format_id: str, name: str, lines: list[str]) -> None:
    folder = ROOT / format_id
    folder.mkdir(parents=True, exist_ok=True)
    for text in lines:
        json.loads(text)
    (folder / name).write_text("".join(text + "\n" for text in lines), encoding="utf-8")


def dump(message: dict) -> str:
    return json.dumps(message, ensure_ascii=False)


# --------------------------------------------------------------------------------------------
# KafkaRiverCanal: retail.customers (keys id) and retail.orders (keys order_id)
T0 = 1_717_200_000_000  # 2024-06-01 00:00:00 UTC


def river(offset: int, minute: int, table: str, event: str, columns: list[dict], keys: list[str]) -> str:
    return dump({
        "binlog": f"{offset}@mysql-bin.000042", "time": T0 + minute * 60_000,
        "canalTime": T0 + minute * 60_000 + 480, "db": "retail", "table": table, "event": event,
        "columns": columns, "keys": keys,
    })


def c(name: str, type_text: str, value: str | None, **extra) -> dict:
    column = {"n": name, "t": type_text, "v": value if value is not None else "", "null": value is None}
    column.update(extra)
    return column


CUSTOMER = ["id"]
ORDER = ["order_id"]
river_lines = [
    river(4, 1, "customers", "i", [c("id", "int(11)", "1"), c("name", "varchar(64)", "王芳"), c("city", "varchar(32)", "上海")], CUSTOMER),
    river(380, 2, "customers", "i", [c("id", "int(11)", "2"), c("name", "varchar(64)", "Li Lei"), c("city", "varchar(32)", None)], CUSTOMER),
    river(770, 3, "orders", "i", [c("order_id", "bigint(20)", "9001"), c("customer_id", "int(11)", "1"), c("amount", "decimal(30,10)", "0.10")], ORDER),
    river(1150, 4, "customers", "u", [
        c("id", "int(11)", "2", updated=False), c("name", "varchar(64)", "Li Lei", updated=False),
        c("city", "varchar(32)", "北京", updated=True),
    ], CUSTOMER),
    river(1560, 5, "orders", "i", [c("order_id", "bigint(20)", "9002"), c("customer_id", "int(11)", "2"), c("amount", "decimal(30,10)", "12345678901234567890.1234567890")], ORDER),
    river(1940, 6, "orders", "d", [c("order_id", "bigint(20)", "9001"), c("customer_id", "int(11)", "1"), c("amount", "decimal(30,10)", "0.10")], ORDER),
    # key change: order 9002 renumbered 9102
    river(2330, 7, "orders", "u", [
        c("order_id", "bigint(20)", "9102", updated=True, origin_val="9002"),
        c("customer_id", "int(11)", "2", updated=False),
        c("amount", "decimal(30,10)", "12345678901234567890.1234567890", updated=False),
    ], ORDER),
    # a column added to customers (ALTER TABLE on the source): it appears in the next row image
    river(2710, 8, "customers", "u", [
        c("id", "int(11)", "1", updated=False), c("name", "varchar(64)", "王芳", updated=False),
        c("city", "varchar(32)", "上海", updated=False), c("vip", "tinyint(1)", "1", updated=True),
    ], CUSTOMER),
]
# a re-delivered message (at-least-once delivery): counted once
river_lines.append(river_lines[3])

# --------------------------------------------------------------------------------------------
# CloudCanal JSON: teahouse.products (pks named) and teahouse.stock (pks [], key from the DDL's tableChanges)
T1 = 1_717_286_400_000  # 2024-06-02 00:00:00 UTC
PRODUCT_TYPES = {"sku": "varchar(16)", "title": "varchar(64)", "price": "decimal(12,2)"}
PRODUCT_JDBC = {"sku": 12, "title": 12, "price": 3}
STOCK_TYPES = {"sku": "varchar(16)", "warehouse": "varchar(8)", "qty": "int"}
STOCK_JDBC = {"sku": 12, "warehouse": 12, "qty": 4}


def cloudcanal(action: str, minute: int, table: str, *, data=None, before=None, ddl=False, sql="",
               table_changes=None, entry_type="ROWDATA") -> dict:
    products = table == "products"
    message = {
        "action": action, "before": before or [], "bid": minute, "data": data or [], "db": "teahouse",
        "dbValType": PRODUCT_TYPES if products else STOCK_TYPES, "isDdl": ddl, "entryType": entry_type,
        "execTs": T1 + minute * 60_000, "jdbcType": PRODUCT_JDBC if products else STOCK_JDBC,
        "pks": ["sku"] if products and not ddl else [], "schema": "teahouse", "sendTs": T1 + minute * 60_000 + 950,
        "sql": sql, "table": table,
    }
    if table_changes:
        message["tableChanges"] = {"table": {"primaryKeyColumnNames": table_changes}, "type": action}
    return message


cloudcanal_lines = [
    dump(cloudcanal("CREATE", 0, "stock", ddl=True, table_changes=["sku", "warehouse"],
                    sql="CREATE TABLE stock (sku varchar(16), warehouse varchar(8), qty int, PRIMARY KEY (sku, warehouse))")),
    # prices as bare JSON numbers: 0.10 keeps its trailing zero
    '{"action":"INSERT","before":[],"bid":1,"data":[{"sku":"TEA-01","title":"Longjing tea","price":0.10},'
    '{"sku":"CUP-07","title":"Gaiwan","price":89.90}],"db":"teahouse","dbValType":{"sku":"varchar(16)",'
    '"title":"varchar(64)","price":"decimal(12,2)"},"isDdl":false,"entryType":"ROWDATA","execTs":1717286460000,'
    '"jdbcType":{"sku":12,"title":12,"price":3},"pks":["sku"],"schema":"teahouse","sendTs":1717286460950,'
    '"sql":"","table":"products"}',
    dump(cloudcanal("INSERT", 1, "stock", data=[{"sku": "TEA-01", "warehouse": "SH", "qty": "40"},
                                                {"sku": "CUP-07", "warehouse": "SH", "qty": "12"}])),
    dump({"action": "", "bid": 1, "db": "teahouse", "schema": "teahouse", "table": "", "entryType": "TRANSACTIONEND",
          "isDdl": False, "execTs": T1 + 60_000, "sendTs": T1 + 60_990, "data": [], "before": [], "pks": []}),
    dump(cloudcanal("UPDATE", 2, "products", before=[{"price": "0.10"}],
                    data=[{"sku": "TEA-01", "title": "Longjing tea", "price": "0.12"}])),
    dump(cloudcanal("UPDATE", 3, "stock", before=[{"sku": "CUP-07", "warehouse": "SH", "qty": "12"}],
                    data=[{"sku": "CUP-07", "warehouse": "SH", "qty": "11"}])),
    dump(cloudcanal("ALTER", 4, "products", ddl=True, table_changes=["sku"],
                    sql="ALTER TABLE products ADD COLUMN origin varchar(32) NULL")),
    # key change: CUP-07 renamed CUP-08
    dump(cloudcanal("UPDATE", 5, "products",
                    before=[{"sku": "CUP-07", "title": "Gaiwan", "price": "89.90", "origin": None}],
                    data=[{"sku": "CUP-08", "title": "Gaiwan", "price": "89.90", "origin": "景德镇"}])),
    dump(cloudcanal("DELETE", 6, "stock", before=[{"sku": "TEA-01", "warehouse": "SH", "qty": "40"}])),
]
cloudcanal_lines.append(cloudcanal_lines[4])

# --------------------------------------------------------------------------------------------
# CKafka format one: membership.members (keyed by the canal-shaped CREATE TABLE in the same topic)
# and membership.page_views (no DDL: keyed by the whole row, which `dbt build` warns about).
GTID = "6f1f5c0e-1f2a-11ef-9d0b-0242ac120002"


def ckafka(type_code: str, pos: int, hhmmss: str, table: str, new=None, old=None) -> str:
    return dump({
        "BINLOG_NAME": "mysql-bin.000107", "BINLOG_POS": pos, "DATABASE": "membership", "EVENT_SERVER_ID": None,
        "GLOBAL_ID": f"{GTID}:{pos // 100}", "GROUP_ID": None, "NEW_VALUES": new, "OLD_VALUES": old,
        "TABLE": table, "TIME": f"20240603{hhmmss}", "TYPE": type_code,
    })


def ckafka_ddl(sql: str, es: int, ddl_type: str, table: str) -> str:
    return dump({
        "data": None, "database": "membership", "es": es, "id": 0, "isDdl": True, "mysqlType": None, "old": None,
        "pkNames": None, "sql": sql, "sqlType": None, "table": table, "ts": es, "type": ddl_type,
    })


ckafka_lines = [
    ckafka_ddl("CREATE TABLE `members` (\n  `id` int NOT NULL,\n  `nick` varchar(32) NOT NULL,\n"
               "  `points` decimal(12,2) DEFAULT NULL,\n  PRIMARY KEY (`id`)\n) ENGINE=InnoDB",
               1717344000, "CREATE", "members"),
    '{"BINLOG_NAME":"mysql-bin.000107","BINLOG_POS":300,"DATABASE":"membership","EVENT_SERVER_ID":null,'
    f'"GLOBAL_ID":"{GTID}:3","GROUP_ID":null,"NEW_VALUES":{{"id":1,"nick":"小龙","points":0.10}},'
    '"OLD_VALUES":null,"TABLE":"members","TIME":"20240603080100","TYPE":"I"}',
    ckafka("I", 420, "080130", "members", new={"id": "2", "nick": "Mei", "points": "15.50"}),
    ckafka("I", 510, "080200", "page_views", new={"member_id": "1", "path": "/tea", "seen_at": "2024-06-03 08:02:00"}),
    ckafka("U", 640, "080300", "members", new={"id": "2", "nick": "Mei", "points": "20.00"},
           old={"id": "2", "nick": "Mei", "points": "15.50"}),
    ckafka_ddl("ALTER TABLE `members` ADD COLUMN `level` tinyint NULL", 1717344240, "ALTER", "members"),
    # key change: member 1 renumbered 100
    ckafka("U", 790, "080500", "members", new={"id": "100", "nick": "小龙", "points": "0.10", "level": "3"},
           old={"id": "1", "nick": "小龙", "points": "0.10", "level": None}),
    ckafka("D", 880, "080600", "members", old={"id": "2", "nick": "Mei", "points": "20.00", "level": None}),
    ckafka("U", 950, "080700", "page_views", new={"member_id": "100", "path": "/tea", "seen_at": "2024-06-03 08:02:00"},
           old={"member_id": "1", "path": "/tea", "seen_at": "2024-06-03 08:02:00"}),
]
ckafka_lines.append(ckafka_lines[4])

if __name__ == "__main__":
    write("kafka_river_canal", "retail.jsonl", river_lines)
    write("cloudcanal_json", "teahouse.jsonl", cloudcanal_lines)
    write("ckafka_format_one", "membership.jsonl", ckafka_lines)
