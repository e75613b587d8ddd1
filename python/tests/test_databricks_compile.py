"""The `databricks` target (dbt-databricks) compiles and builds the whole project without a workspace.

dbt-databricks connects through databricks-sql-connector, which speaks HiveServer2's Thrift protocol
(TCLIService, its own vendored client) over HTTPS, POSTing to `https://<host>:443/<http_path>` with
a urllib3 connection pool. The test replaces only that pool (the `HTTPSConnectionPool` the
connector's `THttpClient` opens) with an in-memory one that hands each request body to a fake
workspace implementing TCLIService: every statement succeeds; `SET <key>` answers the cluster's
value; other statements that return rows (SHOW, DESCRIBE, SELECT) return none, i.e. an empty
workspace. Everything above the pool (dbt-databricks, its credentials and session code, the
connector's THttpClient, auth headers, retries and Thrift client) runs as it would against
Databricks, so `dbt parse`, `dbt compile` and the DDL of `dbt run` are produced by dbt-databricks
and any Jinja or SQL-generation error shows up here.
"""

from __future__ import annotations

import json
import re
import uuid
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
import thrift.transport.THttpClient  # noqa: F401 - before the connector's THttpClient, which subclasses it
from databricks.sql.auth import thrift_http_client
from databricks.sql.thrift_api.TCLIService import TCLIService, ttypes
from thrift.protocol import TBinaryProtocol
from thrift.transport import TTransport

from cdc_lake.dbt import PROJECT_DIR

HOST = "adb-1234567890.12.azuredatabricks.net"
CLUSTER_PATH = "/sql/protocolv1/o/0/0101-123456-abcdefgh"
WAREHOUSE_PATH = "/sql/1.0/warehouses/0123456789abcdef"
TOKEN = "dapi-test-token"
# What a Databricks cluster answers to `SET <key>` (dbt-databricks asks a cluster its runtime version).
CLUSTER_CONF = {"spark.databricks.clusterUsageTags.sparkVersion": "16.4.x-scala2.12"}

OK = ttypes.TStatus(statusCode=ttypes.TStatusCode.SUCCESS_STATUS)
ROW_RETURNING = re.compile(r"^\s*(/\*.*?\*/\s*)*(select|with|show|describe|desc|set)\b", re.I | re.S)
SET_KEY = re.compile(r"^\s*(/\*.*?\*/\s*)*set\s+([\w.]+)\s*;?\s*$", re.I | re.S)
STRING_TYPE = ttypes.TTypeDesc(
    types=[ttypes.TTypeEntry(primitiveEntry=ttypes.TPrimitiveTypeEntry(type=ttypes.TTypeId.STRING_TYPE))]
)


def _handle() -> ttypes.THandleIdentifier:
    return ttypes.THandleIdentifier(guid=uuid.uuid4().bytes, secret=uuid.uuid4().bytes)


def _result(statement: str) -> tuple[list[str], list[tuple[str, ...]]]:
    """The columns and rows an empty Databricks workspace answers to `statement`."""
    set_key = SET_KEY.match(statement)
    if set_key:
        key = set_key.group(2)
        return ["key", "value"], [(key, CLUSTER_CONF.get(key, "<undefined>"))]
    return ["value"], []


class FakeWorkspace(TCLIService.Iface):
    """An empty Databricks workspace, as TCLIService answers: records every statement it is sent."""

    def __init__(self) -> None:
        self.statements: list[str] = []
        self.requests: list[tuple[str, str, dict[str, str]]] = []  # (host, url path, headers)
        self.sessions: list[ttypes.TOpenSessionReq] = []
        self.catalog_calls: list[tuple[str, str | None]] = []  # (call, schema)
        self._results: dict[bytes, tuple[list[str], list[tuple[str, ...]]]] = {}

    def OpenSession(self, req: ttypes.TOpenSessionReq) -> ttypes.TOpenSessionResp:
        self.sessions.append(req)
        return ttypes.TOpenSessionResp(
            status=OK,
            serverProtocolVersion=req.client_protocol_i64,
            sessionHandle=ttypes.TSessionHandle(sessionId=_handle()),
            configuration={},
            canUseMultipleCatalogs=True,
        )

    def CloseSession(self, req: ttypes.TCloseSessionReq) -> ttypes.TCloseSessionResp:
        return ttypes.TCloseSessionResp(status=OK)

    def ExecuteStatement(self, req: ttypes.TExecuteStatementReq) -> ttypes.TExecuteStatementResp:
        self.statements.append(req.statement)
        handle = _handle()
        self._results[handle.guid] = _result(req.statement)
        return ttypes.TExecuteStatementResp(
            status=OK,
            operationHandle=ttypes.TOperationHandle(
                operationId=handle,
                operationType=ttypes.TOperationType.EXECUTE_STATEMENT,
                hasResultSet=bool(ROW_RETURNING.match(req.statement)),
            ),
        )

    def _metadata_operation(self, name: str, schema: str | None, columns: list[str]) -> Any:
        """A catalog call (GetTables, GetSchemas...): an empty workspace has nothing to list."""
        self.catalog_calls.append((name, schema))
        handle = _handle()
        self._results[handle.guid] = (columns, [])
        operation = ttypes.TOperationHandle(
            operationId=handle, operationType=ttypes.TOperationType.GET_TABLES, hasResultSet=True
        )
        return getattr(ttypes, f"T{name}Resp")(status=OK, operationHandle=operation)

    def GetCatalogs(self, req: ttypes.TGetCatalogsReq) -> ttypes.TGetCatalogsResp:
        return self._metadata_operation("GetCatalogs", None, ["TABLE_CAT"])

    def GetSchemas(self, req: ttypes.TGetSchemasReq) -> ttypes.TGetSchemasResp:
        return self._metadata_operation("GetSchemas", req.schemaName, ["TABLE_SCHEM", "TABLE_CATALOG"])

    def GetTables(self, req: ttypes.TGetTablesReq) -> ttypes.TGetTablesResp:
        return self._metadata_operation(
            "GetTables", req.schemaName, ["TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE", "REMARKS"]
        )

    def GetColumns(self, req: ttypes.TGetColumnsReq) -> ttypes.TGetColumnsResp:
        return self._metadata_operation(
            "GetColumns", req.schemaName, ["TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME", "COLUMN_NAME", "TYPE_NAME"]
        )

    def GetOperationStatus(self, req: ttypes.TGetOperationStatusReq) -> ttypes.TGetOperationStatusResp:
        return ttypes.TGetOperationStatusResp(status=OK, operationState=ttypes.TOperationState.FINISHED_STATE)

    def _metadata(self, operation: ttypes.TOperationHandle) -> ttypes.TGetResultSetMetadataResp:
        columns, _ = self._results[operation.operationId.guid]
        return ttypes.TGetResultSetMetadataResp(
            status=OK,
            resultFormat=ttypes.TSparkRowSetType.COLUMN_BASED_SET,
            schema=ttypes.TTableSchema(
                columns=[
                    ttypes.TColumnDesc(columnName=name, typeDesc=STRING_TYPE, position=position)
                    for position, name in enumerate(columns, start=1)
                ]
            ),
        )

    def GetResultSetMetadata(self, req: ttypes.TGetResultSetMetadataReq) -> ttypes.TGetResultSetMetadataResp:
        return self._metadata(req.operationHandle)

    def FetchResults(self, req: ttypes.TFetchResultsReq) -> ttypes.TFetchResultsResp:
        columns, rows = self._results[req.operationHandle.operationId.guid]
        values = [[row[i] for row in rows] for i in range(len(columns))]
        return ttypes.TFetchResultsResp(
            status=OK,
            hasMoreRows=False,
            resultSetMetadata=self._metadata(req.operationHandle),
            results=ttypes.TRowSet(
                startRowOffset=0,
                rows=[],
                columns=[ttypes.TColumn(stringVal=ttypes.TStringColumn(values=v, nulls=b"")) for v in values],
            ),
        )

    def CloseOperation(self, req: ttypes.TCloseOperationReq) -> ttypes.TCloseOperationResp:
        self._results.pop(req.operationHandle.operationId.guid, None)
        return ttypes.TCloseOperationResp(status=OK)

    def CancelOperation(self, req: ttypes.TCancelOperationReq) -> ttypes.TCancelOperationResp:
        return ttypes.TCancelOperationResp(status=OK)


class InMemoryResponse:
    """The parts of urllib3's HTTPResponse that the connector's THttpClient reads."""

    status = 200
    reason = "OK"

    def __init__(self, body: bytes) -> None:
        self.headers: dict[str, str] = {"Content-Type": "application/x-thrift"}
        self._body = BytesIO(body)

    def read(self, size: int) -> bytes:
        return self._body.read(size)

    def drain_conn(self) -> None:
        pass

    def release_conn(self) -> None:
        pass


class InMemoryPool:
    """Stands in for urllib3's HTTPSConnectionPool: each POST is answered by the fake workspace."""

    workspace: FakeWorkspace

    def __init__(self, host: str, port: int | None = None, **kwargs: Any) -> None:
        self.host = host
        self.port = port
        self._processor = TCLIService.Processor(self.workspace)

    def request(self, method: str, url: str, body: bytes, headers: dict[str, str], **kwargs: Any) -> InMemoryResponse:
        assert method == "POST", method
        self.workspace.requests.append((f"{self.host}:{self.port}", url, dict(headers)))
        response = TTransport.TMemoryBuffer()
        self._processor.process(
            TBinaryProtocol.TBinaryProtocol(TTransport.TMemoryBuffer(body)),
            TBinaryProtocol.TBinaryProtocol(response),
        )
        return InMemoryResponse(response.getvalue())


@pytest.fixture(scope="module")
def dbt_state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One target path for every databricks invocation of the module, so dbt parses the project once."""
    return tmp_path_factory.mktemp("databricks-dbt")


@pytest.fixture
def workspace(monkeypatch: pytest.MonkeyPatch) -> FakeWorkspace:
    fake = FakeWorkspace()
    pool = type("BoundInMemoryPool", (InMemoryPool,), {"workspace": fake})
    monkeypatch.setattr(thrift_http_client, "HTTPSConnectionPool", pool)
    monkeypatch.setenv("DATABRICKS_HOST", HOST)
    monkeypatch.delenv("DATABRICKS_HTTP_PATH", raising=False)
    monkeypatch.delenv("DATABRICKS_ORGANIZATION", raising=False)
    monkeypatch.delenv("DATABRICKS_CATALOG", raising=False)
    monkeypatch.setenv("DATABRICKS_CLUSTER_ID", "0101-123456-abcdefgh")
    monkeypatch.setenv("DATABRICKS_TOKEN", TOKEN)
    monkeypatch.setenv("CDC_LAKE_SCHEMA", "cdc_lake_ci")
    monkeypatch.setenv("CDC_LAKE_RAW_SCHEMA", "cdc_raw_ci")
    return fake


def _dbt(state: Path, *args: str) -> Any:
    """Run dbt in-process (so the patched pool is used); fail the test on any dbt error."""
    from dbt.cli.main import dbtRunner

    result = dbtRunner().invoke(
        [
            "--quiet",
            *args,
            "--project-dir",
            str(PROJECT_DIR),
            "--profiles-dir",
            str(PROJECT_DIR / "profiles"),
            "--target-path",
            str(state / "target"),
            "--log-path",
            str(state / "logs"),
        ]
    )
    assert result.success, f"dbt {' '.join(args)} failed: {result.exception or result.result}"
    return result.result


def _manifest(state: Path) -> dict[str, Any]:
    return json.loads((state / "target" / "manifest.json").read_text(encoding="utf-8"))


def _assert_went_to(workspace: FakeWorkspace, http_path: str) -> None:
    """Every request went to the workspace's HTTP path with the token of DATABRICKS_TOKEN."""
    assert workspace.requests
    assert {(host, url) for host, url, _ in workspace.requests} == {(f"{HOST}:443", http_path)}
    assert all(headers.get("Authorization") == f"Bearer {TOKEN}" for _, _, headers in workspace.requests)
    assert all("dbt-databricks" in headers.get("User-Agent", "") for _, _, headers in workspace.requests)


def test_databricks_target_compiles_every_model_and_test(
    workspace: FakeWorkspace, dbt_state: Path, lake: Any
) -> None:
    # with the example analyst models (off by default), so that every model and test compiles
    _dbt(dbt_state, "compile", "--target", "databricks", "--vars", '{"cdc_examples": true}')
    manifest = _manifest(dbt_state)
    assert manifest["metadata"]["adapter_type"] == "databricks"

    models = {n["name"]: n for n in manifest["nodes"].values() if n["resource_type"] == "model"}
    for name in ("cdc_changes", "cdc_history", "cdc_current", "cdc_ddl", "cdc_quarantine"):
        assert name in models, f"model {name} missing from the databricks compile"
    compiled = sorted(
        n["name"] for n in manifest["nodes"].values() if n["resource_type"] in ("model", "test") and n.get("compiled")
    )
    not_compiled = sorted(
        n["name"]
        for n in manifest["nodes"].values()
        if n["resource_type"] in ("model", "test") and not n.get("compiled")
    )
    assert compiled and not_compiled == []
    for name, node in models.items():
        assert node["compiled_code"].strip(), f"{name} compiled to nothing"
        assert "cdc_raw_ci" in node["compiled_code"] or "cdc_lake_ci" in node["compiled_code"], name

    # Databricks gets no jar: the JVM functions' SQL equivalents stand in for them (the exact-JSON
    # normalization is regular expressions, the keyless row chains a fold), and no model or test
    # calls a function of the target schema.
    staging = models["stg_canal_json__changes"]["compiled_code"]
    assert "regexp_replace" in staging and ".cdc_exact_json(" not in staging
    chains = models["int_cdc__row_image_chains"]["compiled_code"]
    assert "aggregate(" in chains and ".cdc_chain_row_images(" not in chains
    calls_jvm = [
        n["name"] for n in manifest["nodes"].values()
        if n["resource_type"] in ("model", "test") and re.search(r"\bcdc_lake_ci\.\w+\(", n["compiled_code"])
    ]
    assert calls_jvm == []

    # Spark's own SQL parser (parsing only: no catalog, no data) accepts every compiled model and test.
    parser = lake.spark._jsparkSession.sessionState().sqlParser()
    syntax_errors = {}
    for node in manifest["nodes"].values():
        if node["resource_type"] in ("model", "test"):
            try:
                parser.parsePlan(node["compiled_code"])
            except Exception as exc:  # noqa: BLE001 - py4j wraps Spark's ParseException
                syntax_errors[node["name"]] = " ".join(str(exc).split())[:400]
    assert syntax_errors == {}

    # Every model and seed is Delta on Databricks.
    formats = {n["name"]: n["config"].get("file_format") for n in manifest["nodes"].values()
               if n["resource_type"] in ("model", "seed")}
    assert set(formats.values()) == {"delta"}, formats

    # The connection went to the cluster's HTTP path (made of DATABRICKS_ORGANIZATION, default 0, and
    # DATABRICKS_CLUSTER_ID) with the token, in the catalog and schema of the profile, with the
    # profile's session properties; dbt introspected the (empty) target schema through it.
    _assert_went_to(workspace, CLUSTER_PATH)
    assert workspace.sessions
    for session in workspace.sessions:
        assert session.initialNamespace.catalogName == "hive_metastore"
        assert session.configuration["spark.sql.session.timeZone"] == "UTC"
    assert ("GetTables", "cdc_lake_ci") in workspace.catalog_calls, workspace.catalog_calls


def test_platform_macros_dispatch_per_target(
    workspace: FakeWorkspace, dbt_state: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # dbt-databricks dispatches databricks__, then spark__, then default__: the project's
    # databricks__ macros are the ones that answer, on a SQL warehouse's HTTP path as on a cluster's.
    monkeypatch.setenv("DATABRICKS_HTTP_PATH", WAREHOUSE_PATH)
    monkeypatch.setenv("DATABRICKS_CATALOG", "main")
    inline = (
        "select '{{ cdc_file_format() }}' as file_format, {{ cdc_is_databricks() }} as is_databricks, "
        "{{ cdc_exact_json('t') }} as exact, '{{ adapter.dispatch('cdc_is_databricks', 'cdc_lake').macro.name }}' "
        "as dispatched"
    )
    on_databricks = _dbt(dbt_state, "compile", "--target", "databricks", "--inline", inline)
    compiled = on_databricks.results[0].node.compiled_code.strip()
    assert compiled.startswith("select 'delta' as file_format, True as is_databricks, regexp_replace("), compiled
    assert compiled.endswith("'databricks__cdc_is_databricks' as dispatched"), compiled
    _assert_went_to(workspace, WAREHOUSE_PATH)
    assert {s.initialNamespace.catalogName for s in workspace.sessions} == {"main"}
    # The thrift target (a local Spark Thrift Server) is Spark, not Databricks. Compiling inline SQL
    # opens no connection to it.
    on_thrift = _dbt(tmp_path, "compile", "--target", "thrift", "--inline", inline,
                     "--no-populate-cache")
    assert on_thrift.results[0].node.compiled_code.strip() == (
        "select 'parquet' as file_format, False as is_databricks, cdc_lake_ci.cdc_exact_json(t) as exact, "
        "'spark__cdc_is_databricks' as dispatched"
    )


def _created(statement: str) -> tuple[str, str] | None:
    """(kind, model) of a `create [or replace] table|view <catalog>.<schema>.<model>` statement."""
    match = re.search(
        r"\bcreate\s+(?:or\s+replace\s+)?(table|view)\s+(?:`[^`]+`\.)*`([^`]+)`", statement, re.I
    )
    return (match.group(1).lower(), match.group(2)) if match else None


def test_databricks_run_emits_delta_ddl(workspace: FakeWorkspace, dbt_state: Path, lake: Any) -> None:
    """The statements `dbt run` of every model sends are Delta DDL, and no JVM function."""
    manifest_models = {
        n["name"]: n["config"]["materialized"]
        for n in _manifest(dbt_state)["nodes"].values()
        if n["resource_type"] == "model" and n["config"].get("enabled", True) and "analytics" not in n["fqn"]
        and n["config"]["materialized"] != "ephemeral"  # part of the models that read it, never created
    }
    _dbt(dbt_state, "run", "--target", "databricks", "--exclude", "path:models/marts/analytics")
    created: dict[str, list[str]] = {}
    for statement in workspace.statements:
        kind_and_model = _created(statement)
        if kind_and_model:
            created.setdefault(kind_and_model[1], []).append(statement)
            kind = kind_and_model[0]
            assert kind == ("view" if manifest_models[kind_and_model[1]] == "view" else "table"), statement
            if kind == "table":
                assert re.search(r"\busing delta\b", statement, re.I), statement
    # every model was created, each table as Delta (dbt-databricks's table and incremental)
    assert set(created) == set(manifest_models), set(manifest_models) ^ set(created)
    for statement in created["int_cdc__events"]:
        assert re.search(r"partitioned by \(landing_seq\)", statement, re.I), statement
    assert not any(re.search(r"\busing parquet\b", s, re.I) for s in workspace.statements)
    # no JVM functions are created there (the on-run-start hook does nothing on Databricks)
    assert not any(re.search(r"\bcreate\b.*\bfunction\b", s, re.I | re.S) for s in workspace.statements)
    # Every statement sent is valid Spark SQL.
    parser = lake.spark._jsparkSession.sessionState().sqlParser()
    for statement in workspace.statements:
        parser.parsePlan(statement)
