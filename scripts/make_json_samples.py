import json
def canal(typ, table, data=None, old=None, es=0, pk=("id",), sql="", isddl=False, mtypes=None, stypes=None, msg_id=1):
    return {"data": data, "database": "shop", "es": es, "id": msg_id, "isDdl": isddl,
            "mysqlType": mtypes, "old": old, "pkNames": list(pk) if pk else None, "sql": sql,
            "sqlType": stypes, "table": table, "ts": es + 120, "type": typ}
mt = {"id": "bigint(20)", "name": "varchar(64)", "price": "decimal(30,10)", "updated_at": "datetime"}
st = {"id": -5, "name": 12, "price": 3, "updated_at": 93}
base = 1700000000000
msgs = [
  canal("CREATE", "products", sql="CREATE TABLE `shop`.`products` (`id` bigint(20) NOT NULL, `name` varchar(64), `price` decimal(30,10), `updated_at` datetime, PRIMARY KEY (`id`))", isddl=True, pk=None, es=base),
  canal("INSERT", "products", [{"id": "1", "name": "apple", "price": "0.10", "updated_at": "2023-11-14 22:13:20"},
                               {"id": "2", "name": "pear", "price": "12345678901234567890.1234567890", "updated_at": "2023-11-14 22:13:20"}], es=base + 1000, mtypes=mt, stypes=st, msg_id=2),
  canal("UPDATE", "products", [{"id": "1", "name": "apple", "price": "0.20", "updated_at": "2023-11-14 22:14:00"}],
        old=[{"price": "0.10", "updated_at": "2023-11-14 22:13:20"}], es=base + 40000, mtypes=mt, stypes=st, msg_id=3),
  canal("INSERT", "products", [{"id": "3", "name": "plum\nwith a newline", "price": None, "updated_at": "2023-11-14 22:15:00"}], es=base + 100000, mtypes=mt, stypes=st, msg_id=4),
  canal("UPDATE", "products", [{"id": "30", "name": "plum\nwith a newline", "price": None, "updated_at": "2023-11-14 22:16:00"}],
        old=[{"id": "3", "updated_at": "2023-11-14 22:15:00"}], es=base + 160000, mtypes=mt, stypes=st, msg_id=5),
  canal("ALTER", "products", sql="ALTER TABLE `shop`.`products` ADD COLUMN `stock` int AFTER `price`", isddl=True, pk=None, es=base + 170000, msg_id=6),
  canal("UPDATE", "products", [{"id": "2", "name": "pear", "price": "12345678901234567890.1234567890", "stock": "7", "updated_at": "2023-11-14 22:17:00"},
                               {"id": "1", "name": "apple", "price": "0.20", "stock": "3", "updated_at": "2023-11-14 22:17:00"}],
        old=[{"stock": None, "updated_at": "2023-11-14 22:13:20"}, {"stock": None, "updated_at": "2023-11-14 22:14:00"}], es=base + 220000,
        mtypes={**mt, "stock": "int"}, stypes={**st, "stock": 4}, msg_id=7),
  canal("DELETE", "products", [{"id": "2", "name": "pear", "price": "12345678901234567890.1234567890", "stock": "7", "updated_at": "2023-11-14 22:17:00"}], es=base + 300000, mtypes={**mt, "stock": "int"}, stypes={**st, "stock": 4}, msg_id=8),
  canal("INSERT", "orders", [{"order_id": "100", "product_id": "1", "qty": "2"}], pk=("order_id",), es=base + 310000,
        mtypes={"order_id": "int", "product_id": "bigint(20)", "qty": "int"}, stypes={"order_id": 4, "product_id": -5, "qty": 4}, msg_id=9),
]
lines = [json.dumps(m, ensure_ascii=False) for m in msgs]
lines.insert(5, '{"data":[{"id":"9"}],"database":"shop","table":"products","type":"UPSERT","es":1700000165000}')
lines.insert(6, '{"this is": not json')
# duplicate re-delivery of message 3
lines.append(lines[2])
open('sample_data/canal_json/shop.jsonl', 'w').write("\n".join(lines) + "\n")

schema = {"type": "struct", "name": "inventory.customers.Envelope", "optional": False, "fields": [
  {"type": "struct", "optional": True, "field": "before", "name": "inventory.customers.Value", "fields": [
     {"type": "int32", "optional": False, "field": "id"}, {"type": "string", "optional": False, "field": "email"},
     {"type": "bytes", "optional": True, "field": "balance", "name": "org.apache.kafka.connect.data.Decimal", "version": 1, "parameters": {"scale": "2", "connect.decimal.precision": "10"}},
     {"type": "int32", "optional": True, "field": "birthday", "name": "io.debezium.time.Date", "version": 1}]},
  {"type": "struct", "optional": True, "field": "after", "name": "inventory.customers.Value", "fields": [
     {"type": "int32", "optional": False, "field": "id"}, {"type": "string", "optional": False, "field": "email"},
     {"type": "bytes", "optional": True, "field": "balance", "name": "org.apache.kafka.connect.data.Decimal", "version": 1, "parameters": {"scale": "2", "connect.decimal.precision": "10"}},
     {"type": "int32", "optional": True, "field": "birthday", "name": "io.debezium.time.Date", "version": 1}]},
  {"type": "struct", "optional": False, "field": "source", "fields": []},
  {"type": "string", "optional": False, "field": "op"}, {"type": "int64", "optional": True, "field": "ts_ms"}]}
def dbz(op, before, after, pos, ts, row=0, snapshot="false", with_schema=True):
    payload = {"before": before, "after": after, "source": {"version": "2.5.0.Final", "connector": "mysql", "name": "dbserver1", "ts_ms": ts, "snapshot": snapshot, "db": "inventory", "table": "customers", "server_id": 223344, "gtid": None, "file": "mysql-bin.000003", "pos": pos, "row": row}, "op": op, "ts_ms": ts + 5}
    return {"schema": schema, "payload": payload} if with_schema else payload
c1 = {"id": 1001, "email": "sally@example.com", "balance": "AN0=", "birthday": 19000}
c1b = {**c1, "email": "sally.t@example.com"}
c2 = {"id": 1002, "email": "george@example.com", "balance": None, "birthday": None}
c3 = {"id": 1003, "email": "ed@example.com", "balance": "ASw=", "birthday": 10}
ddl = {"source": {"version": "2.5.0.Final", "connector": "mysql", "name": "dbserver1", "ts_ms": 1700000000000, "db": "inventory", "table": "customers", "file": "mysql-bin.000003", "pos": 100}, "databaseName": "inventory", "ddl": "CREATE TABLE customers (id INT NOT NULL PRIMARY KEY, email VARCHAR(255) NOT NULL, balance DECIMAL(10,2), birthday DATE)", "tableChanges": [{"type": "CREATE", "id": "\"inventory\".\"customers\"", "table": {"primaryKeyColumnNames": ["id"], "columns": []}}], "ts_ms": 1700000000000}
events = [json.dumps(ddl),
  json.dumps(dbz("r", None, c1, 154, 1700000001000, snapshot="true")),
  json.dumps(dbz("r", None, c2, 154, 1700000001000, snapshot="last")),
  json.dumps(dbz("c", None, c3, 400, 1700000002000, with_schema=False)),
  json.dumps(dbz("u", c1, c1b, 600, 1700000003000)),
  json.dumps(dbz("d", c2, None, 800, 1700000004000)),
  json.dumps({"status": "END", "id": "file=mysql-bin.000003,pos=800", "event_count": 1, "data_collections": [{"data_collection": "inventory.customers", "event_count": 1}], "ts_ms": 1700000004001}),
]
open('sample_data/debezium_json/inventory.jsonl', 'w').write("\n".join(events) + "\n")
