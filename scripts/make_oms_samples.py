"""Write the OceanBase OMS sample streams in sample_data/oms_*/ (run from the project root).

Numbers are written as JSON numbers with their exact text (N("0.10") stays 0.10), the way OMS
writes DECIMAL values; python/tests/test_format_oms.py asserts the outcome of every line.
"""

import json
import re
from pathlib import Path


def N(text):
    """A JSON number written with exactly this text."""
    return f"@@number:{text}@@"


def dumps(message):
    return re.sub(r'"@@number:([^@]*)@@"', r"\1", json.dumps(message, ensure_ascii=False))


def write(path, messages):
    Path(path).write_text("".join(dumps(m) + "\n" for m in messages), encoding="utf-8")


# --- oms_default: trade_tenant.trade (OceanBase MySQL tenant) ------------------------------
T0 = 1700001000


def default_meta(table, ts=None, sub=1, pk=None, pv=None, unique=None, db="trade_tenant.trade"):
    meta = {
        "checkpoint": str(ts) if ts else None,
        "record_primary_key": pk,
        "source_identity": "subtopic-trade-0" if ts else "1",
        "record_primary_value": pv,
        "dbType": "OB_MYSQL",
        "table_name": table,
        "db": db,
    }
    if ts:
        meta["storeDataSequence"] = N(str(ts * 100000 + sub))
        meta["timestamp"] = str(ts)
        meta["uniqueId"] = unique or f"{ts}-{sub}"
    return meta


def default_msg(record_type, table, prev=None, post=None, ts=None, sub=1, pk=None, pv=None, **kw):
    return {
        "allMetaData": default_meta(table, ts, sub, pk, pv, **kw),
        "prevStruct": prev,
        "recordType": record_type,
        "postStruct": post,
    }


def order(order_id, customer, amount, status, **extra):
    return {"order_id": N(str(order_id)), "customer": customer, "amount": N(amount), "status": status, **extra}


o1 = order(1, "alice", "0.10", "NEW")
o1_paid = order(1, "alice", "0.10", "PAID")
o1_paid_020 = order(1, "alice", "0.20", "PAID")
o1_shipped = order(1, "alice", "0.20", "SHIPPED")
o2 = order(2, "bob", "12345678901234567890.1234567890", "NEW")
o2_again = order(2, "bob", "98765432109876543210.0000000000", "REOPENED")
o3 = order(3, "carol", "-0.0000000001", "NEW", note=None)
o30 = order(30, "carol", "-0.0000000001", "NEW", note="moved")
update_paid = default_msg("UPDATE", "orders", o1, o1_paid, T0 + 20, pk="order_id", pv="1")
default_stream = [
    default_msg("ROW", "currencies", post={"code": "CNY", "name": "Renminbi", "rate": N("1.000000000000")},
                pk="code", pv="CNY"),
    default_msg("ROW", "currencies", post={"code": "USD", "name": "US dollar",
                                           "rate": N("7.1234567890123456789012345678901")},
                pk="code", pv="USD"),
    default_msg("DDL", "orders", post={"ddl": "CREATE TABLE `orders` (`order_id` bigint NOT NULL, "
                                              "`customer` varchar(64), `amount` decimal(38,10), "
                                              "`status` varchar(16), PRIMARY KEY (`order_id`))"}, ts=T0),
    {"allMetaData": {"checkpoint": str(T0 + 5), "source_identity": "subtopic-trade-0", "dbType": "OB_MYSQL",
                     "timestamp": str(T0 + 5)}, "prevStruct": None, "recordType": "HEARTBEAT", "postStruct": None},
    default_msg("INSERT", "orders", post=o1, ts=T0 + 10, pk="order_id", pv="1"),
    default_msg("INSERT", "orders", post=o2, ts=T0 + 11, pk="order_id", pv="2"),
    default_msg("INSERT", "orders", post={k: v for k, v in o3.items() if k != "note"}, ts=T0 + 12,
                pk="order_id", pv="3"),
    update_paid,
    # two changes in the same second, delivered out of order: storeDataSequence orders them
    default_msg("UPDATE", "orders", o1_paid_020, o1_shipped, T0 + 30, sub=2, pk="order_id", pv="1"),
    default_msg("UPDATE", "orders", o1_paid, o1_paid_020, T0 + 30, sub=1, pk="order_id", pv="1"),
    default_msg("DELETE", "orders", prev=o2, ts=T0 + 40, pk="order_id", pv="2"),
    default_msg("INSERT", "orders", post=o2_again, ts=T0 + 50, pk="order_id", pv="2"),
    default_msg("DDL", "orders", post={"ddl": "ALTER TABLE `orders` ADD COLUMN `note` varchar(255)"}, ts=T0 + 60),
    default_msg("UPDATE", "orders", o3, o30, T0 + 70, pk="order_id", pv="30"),
    update_paid,  # delivered twice
    {"allMetaData": {"checkpoint": str(T0 + 75), "source_identity": "subtopic-trade-0", "dbType": "OB_MYSQL",
                     "timestamp": str(T0 + 75)}, "prevStruct": None, "recordType": "HEARTBEAT", "postStruct": None},
    default_msg("INSERT", "order_items", post={"order_id": N("1"), "line_no": N("1"), "sku": "A-1", "qty": N("2")},
                ts=T0 + 80, pk="order_id\u0001line_no", pv="1\u00011"),
    default_msg("UPDATE", "order_items", {"order_id": N("1"), "line_no": N("1"), "sku": "A-1", "qty": N("2")},
                {"order_id": N("1"), "line_no": N("1"), "sku": "A-1", "qty": N("3")},
                ts=T0 + 90, pk="order_id\u0001line_no", pv="1\u00011"),
]
write("sample_data/oms_default/trade.jsonl", default_stream)

# --- oms_extend_column_type: crm_tenant.crm ---------------------------------------------------
T1 = 1700002000
LIGHT = {"id": "BIGINT", "name": "VARCHAR", "balance": "DECIMAL", "avatar": "BLOB", "created_at": "TIMESTAMP"}


def typed(image, **more_types):
    types = {**LIGHT, **more_types}
    return {**image, "__light_type": {c: {"schemaType": t} for c, t in types.items() if c in image}}


def customer(cid, name, balance, **extra):
    return {"id": N(str(cid)), "name": name, "balance": N(balance), "avatar": "aGVsbG8=",
            "created_at": "1700000000.123456", **extra}


def extend_msg(record_type, prev=None, post=None, ts=None, pv=None, more_types=None):
    msg = default_msg(record_type, "customers", typed(prev, **(more_types or {})) if prev else None,
                      typed(post, **(more_types or {})) if post else None, ts, pk="id", pv=pv,
                      db="crm_tenant.crm")
    return msg


c1 = customer(1, "Ada", "123456789012345678901234567890.123456789")
c1_renamed = customer(1, "Ada L.", "123456789012345678901234567890.123456789")
c2 = customer(2, "Grace", "0.10")
c2_again = customer(2, "Grace", "0.00")
tier = {"tier": "VARCHAR"}
update_renamed = extend_msg("UPDATE", c1, c1_renamed, T1 + 10, "1")
extend_stream = [
    default_msg("DDL", "customers", post={"ddl": "CREATE TABLE customers (id bigint PRIMARY KEY, name varchar(64), "
                                                 "balance decimal(65,30), avatar blob, created_at timestamp(6))"},
                ts=T1, db="crm_tenant.crm"),
    extend_msg("INSERT", post=c1, ts=T1 + 1, pv="1"),
    extend_msg("INSERT", post=c2, ts=T1 + 2, pv="2"),
    {"allMetaData": {"checkpoint": str(T1 + 3), "source_identity": "subtopic-crm-0", "dbType": "OB_MYSQL",
                     "timestamp": str(T1 + 3)}, "prevStruct": None, "recordType": "HEARTBEAT", "postStruct": None},
    update_renamed,
    extend_msg("DELETE", prev=c2, ts=T1 + 20, pv="2"),
    extend_msg("INSERT", post=c2_again, ts=T1 + 30, pv="2"),
    default_msg("DDL", "customers", post={"ddl": "ALTER TABLE customers ADD COLUMN tier varchar(16)"},
                ts=T1 + 40, db="crm_tenant.crm"),
    extend_msg("UPDATE", {**c1_renamed, "tier": None}, {**customer(100, "Ada L.", "123456789012345678901234567890.123456789"),
                                                        "tier": "gold"}, T1 + 50, "100", tier),
    update_renamed,  # delivered twice
]
write("sample_data/oms_extend_column_type/crm.jsonl", extend_stream)

# --- oms_dataworks: inventory.products ------------------------------------------------------
T2 = 1700003000000
COLUMNS = [{"name": "sku_id", "type": "BIGINT"}, {"name": "title", "type": "VARCHAR(64)"},
           {"name": "price", "type": "DECIMAL(38,10)"}, {"name": "updated_ms", "type": "TIMESTAMP"}]


def dataworks_msg(op, before=None, after=None, at=0, scn=None, ddl=None, columns=COLUMNS):
    return {
        "version": "2.0",
        "schema": {"source": {"dbType": "ob_mysql", "dbVersion": "4.2.1", "dbName": "inventory", "schema": None,
                              "table": "products"},
                   "column": columns, "pk": ["sku_id"]},
        "payload": {"before": {"data": before} if before else None, "after": {"data": after} if after else None,
                    "op": op, "timestamp": {"eventTime": N(str(T2 + at)), "systemTime": N(str(T2 + at + 350)),
                                            "checkpointTime": N(str((T2 + at) // 1000))},
                    "ddl": {"text": ddl} if ddl else None, "scn": str(scn) if scn else "null"},
        "extend": {"load_fm": "oms-demo"},
    }


def control_msg(op, at, scn=None):
    payload = {"timestamp": {"eventTime": N(str(T2 + at))}, "op": op}
    if scn:
        payload["scn"] = str(scn)
    return {"version": "2.0", "payload": payload}


def product(sku, title, price, updated_ms):
    return {"sku_id": N(str(sku)), "title": title, "price": N(price), "updated_ms": N(updated_ms)}


p1 = product(1, "kettle", "0.10", "1700003001000.123456789")
p1_price = product(1, "kettle", "0.15", "1700003006000.000000001")
p2 = product(2, "teapot", "12345678901234567890.1234567890", "1700003002000")
p2_again = product(2, "teapot", "12345678901234567890.1234567891", "1700003009000")
update_price = dataworks_msg("UPDATE", p1, p1_price, 6000, 5006)
dataworks_stream = [
    dataworks_msg("CREATE", at=0, scn=5001, ddl="CREATE TABLE products (sku_id bigint PRIMARY KEY, "
                                                 "title varchar(64), price decimal(38,10), updated_ms timestamp(6))"),
    control_msg("TRANSACTION_BEGIN", 1000, 5002),
    dataworks_msg("INSERT", after=p1, at=1000, scn=5003),
    dataworks_msg("INSERT", after=p2, at=2000, scn=5004),
    control_msg("TRANSACTION_END", 2000, 5005),
    control_msg("HEARTBEAT", 3000),
    update_price,
    dataworks_msg("DELETE", before=p2, at=7000, scn=5007),
    dataworks_msg("INSERT", after=p2_again, at=9000, scn=5008),
    dataworks_msg("ALTER", at=10000, scn=5009, ddl="ALTER TABLE products ADD COLUMN stock int"),
    dataworks_msg("UPDATE", {**p1_price, "stock": None}, {**product(11, "kettle", "0.15", "1700003011000"),
                                                         "stock": N("5")}, 11000, 5010,
                  columns=COLUMNS + [{"name": "stock", "type": "INT"}]),
    update_price,  # delivered twice
]
write("sample_data/oms_dataworks/inventory.jsonl", dataworks_stream)

# --- oms_shareplex: oms_sp_hr.employees (key emp_id from seeds/cdc_table_keys.csv) ----------


def shareplex_msg(op, data, scn, time, rowid_key, key=None):
    msg = {"data": data, "meta": {"posttime": time, "op": op, "size": 1, "time": time, "idx": "1/1",
                                  "seq": N("1"), "table": "oms_sp_hr.employees",
                                  "rowid": f"oms_sp_hr.employees-{rowid_key}", "trans": f"trans-{scn}",
                                  "scn": str(scn)}}
    if key is not None:
        msg["key"] = key
    return msg


def employee(emp_id, name, salary, dept):
    return {"emp_id": N(str(emp_id)), "name": name, "salary": N(salary), "dept": dept}


e1 = employee(1, "Li Lei", "12345678901234567890.1234567890", "R&D")
e1_raise = employee(1, "Li Lei", "23456789012345678901.2345678901", "R&D")
e2 = employee(2, "Han Meimei", "0.10", "Sales")
e2_again = employee(2, "Han Meimei", "0.20", "Support")
raise_e1 = shareplex_msg("upd", {"salary": N("23456789012345678901.2345678901")}, 170000400000003,
                         "2023-11-14T22:53:30", 1, key=e1)
shareplex_stream = [
    shareplex_msg("ins", e1, 170000400000001, "2023-11-14T22:53:20", 1),
    shareplex_msg("ins", e2, 170000400000002, "2023-11-14T22:53:21", 2),
    raise_e1,
    shareplex_msg("del", e2, 170000400000004, "2023-11-14T22:53:40", 2),
    shareplex_msg("ins", e2_again, 170000400000005, "2023-11-14T22:53:50", 2),
    shareplex_msg("upd", {"emp_id": N("10"), "dept": "Research"}, 170000400000006, "2023-11-14T22:54:00", 10,
                  key=e1_raise),
    raise_e1,  # delivered twice
]
write("sample_data/oms_shareplex/hr.jsonl", shareplex_stream)
