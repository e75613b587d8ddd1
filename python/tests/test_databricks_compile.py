"""The `databricks` target compiles the whole project without a workspace.

dbt-spark's `http` method talks HiveServer2's Thrift protocol (TCLIService) over HTTPS to
`https://<host>:443/sql/protocolv1/o/<org>/<cluster>`. The test replaces only the HTTP transport
(`thrift.transport.THttpClient.THttpClient`) with an in-memory one that hands each request to a
fake workspace implementing TCLIService: every statement succeeds, and statements that return rows
(SHOW, DESCRIBE, SELECT) return none, i.e. an empty workspace. Everything above the transport
(dbt-spark's connection code, PyHive, the Thrift client) runs as it would against Databricks, so
`dbt parse`, `dbt compile` and the DDL of `dbt run` are produced for the databricks target and any
Jinja or SQL-generation error shows up here.
"""

from __future__ import annotations

import base64
import json
import re
import uuid
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from thrift.protocol import TBinaryProtocol
from thrift.transport import THttpClient, TTransport
from TCLIService import TCLIService, ttypes

from cdc_lake.dbt import PROJECT_DIR

OK = ttypes.TStatus(statusCode=ttypes.TStatusCode.SUCCESS_STATUS)
ROW_RETURNING = re.compile(r"^\s*(/\*.*?\*/\s*)*(select|with|show|describe|desc)\b", re.I | re.S)


def _handle() -> ttypes.THandleIdentifier:
    return ttypes.THandleIdentifier(guid=uuid.uuid4().bytes, secret=uuid.uuid4().bytes)


class FakeWorkspace(TCLIService.Iface):
    """An empty Databricks cluster, as TCLIService answers: records every statement it is sent."""

    def __init__(self) -> None:
        self.statements: list[str] = []
        self.urls: list[str] = []
        self.headers: list[dict[str, str]] = []
        self.sessions = 0

    def OpenSession(self, req: ttypes.TOpenSessionReq) -> ttypes.TOpenSessionResp:
        self.sessions += 1
        return ttypes.TOpenSessionResp(
            status=OK,
            serverProtocolVersion=req.client_protocol,
            sessionHandle=ttypes.TSessionHandle(sessionId=_handle()),
            configuration={},
        )

    def CloseSession(self, req: ttypes.TCloseSessionReq) -> ttypes.TCloseSessionResp:
        return ttypes.TCloseSessionResp(status=OK)

    def ExecuteStatement(self, req: ttypes.TExecuteStatementReq) -> ttypes.TExecuteStatementResp:
        self.statements.append(req.statement)
        return ttypes.TExecuteStatementResp(
            status=OK,
            operationHandle=ttypes.TOperationHandle(
                operationId=_handle(),
                operationType=ttypes.TOperationType.EXECUTE_STATEMENT,
                hasResultSet=bool(ROW_RETURNING.match(req.statement)),
            ),
        )

    def GetOperationStatus(self, req: ttypes.TGetOperationStatusReq) -> ttypes.TGetOperationStatusResp:
        return ttypes.TGetOperationStatusResp(status=OK, operationState=ttypes.TOperationState.FINISHED_STATE)

    def GetResultSetMetadata(self, req: ttypes.TGetResultSetMetadataReq) -> ttypes.TGetResultSetMetadataResp:
        string_type = ttypes.TTypeDesc(
            types=[ttypes.TTypeEntry(primitiveEntry=ttypes.TPrimitiveTypeEntry(type=ttypes.TTypeId.STRING_TYPE))]
        )
        return ttypes.TGetResultSetMetadataResp(
            status=OK,
            schema=ttypes.TTableSchema(
                columns=[ttypes.TColumnDesc(columnName="value", typeDesc=string_type, position=1)]
            ),
        )

    def FetchResults(self, req: ttypes.TFetchResultsReq) -> ttypes.TFetchResultsResp:
        return ttypes.TFetchResultsResp(
            status=OK,
            hasMoreRows=False,
            results=ttypes.TRowSet(
                startRowOffset=0,
                rows=[],
                columns=[ttypes.TColumn(stringVal=ttypes.TStringColumn(values=[], nulls=b""))],
            ),
        )

    def CloseOperation(self, req: ttypes.TCloseOperationReq) -> ttypes.TCloseOperationResp:
        return ttypes.TCloseOperationResp(status=OK)

    def CancelOperation(self, req: ttypes.TCancelOperationReq) -> ttypes.TCancelOperationResp:
        return ttypes.TCancelOperationResp(status=OK)


class InMemoryHttpTransport(TTransport.TTransportBase):
    """Stands in for THttpClient: each flushed request is answered by the fake workspace."""

    workspace: FakeWorkspace

    def __init__(self, uri: str, *args: Any, **kwargs: Any) -> None:
        self.uri = uri
        self.custom_headers: dict[str, str] = {}
        self._request = BytesIO()
        self._response = BytesIO()
        self._processor = TCLIService.Processor(self.workspace)

    def setCustomHeaders(self, headers: dict[str, str]) -> None:  # noqa: N802 - THttpClient's API
        self.custom_headers = dict(headers)

    def isOpen(self) -> bool:  # noqa: N802
        return True

    def open(self) -> None:
        pass

    def close(self) -> None:
        pass

    def write(self, buf: bytes) -> None:
        self._request.write(buf)

    def read(self, sz: int) -> bytes:
        return self._response.read(sz)

    def flush(self) -> None:
        self.workspace.urls.append(self.uri)
        self.workspace.headers.append(dict(self.custom_headers))
        request = TTransport.TMemoryBuffer(self._request.getvalue())
        response = TTransport.TMemoryBuffer()
        self._request = BytesIO()
        self._processor.process(TBinaryProtocol.TBinaryProtocol(request), TBinaryProtocol.TBinaryProtocol(response))
        self._response = BytesIO(response.getvalue())


@pytest.fixture(scope="module")
def dbt_state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One target path for every databricks invocation of the module, so dbt parses the project once."""
    return tmp_path_factory.mktemp("databricks-dbt")


@pytest.fixture
def workspace(monkeypatch: pytest.MonkeyPatch) -> FakeWorkspace:
    fake = FakeWorkspace()
    transport = type("BoundInMemoryHttpTransport", (InMemoryHttpTransport,), {"workspace": fake})
    monkeypatch.setattr(THttpClient, "THttpClient", transport)
    monkeypatch.setenv("DATABRICKS_HOST", "adb-1234567890.12.azuredatabricks.net")
    monkeypatch.setenv("DATABRICKS_CLUSTER_ID", "0101-123456-abcdefgh")
    monkeypatch.setenv("DATABRICKS_TOKEN", "dapi-test-token")
    monkeypatch.setenv("CDC_LAKE_SCHEMA", "cdc_lake_ci")
    monkeypatch.setenv("CDC_LAKE_RAW_SCHEMA", "cdc_raw_ci")
    return fake


def _dbt(state: Path, *args: str) -> Any:
    """Run dbt in-process (so the patched transport is used); fail the test on any dbt error."""
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


def test_databricks_target_compiles_every_model_and_test(
    workspace: FakeWorkspace, dbt_state: Path, lake: Any
) -> None:
    # with the example analyst models (off by default), so that every model and test compiles
    _dbt(dbt_state, "compile", "--target", "databricks", "--vars", '{"cdc_examples": true}')
    manifest = _manifest(dbt_state)

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

    # Databricks gets no jar: the exact-JSON normalization is the regular expressions there.
    staging = models["stg_canal_json__changes"]["compiled_code"]
    assert "regexp_replace" in staging and ".cdc_exact_json(" not in staging

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

    # The connection went to the cluster's HTTP path with the token from DATABRICKS_TOKEN, and dbt
    # introspected the (empty) target schema through it.
    assert workspace.sessions >= 1
    assert set(workspace.urls) == {
        "https://adb-1234567890.12.azuredatabricks.net:443/sql/protocolv1/o/0/0101-123456-abcdefgh"
    }
    token = base64.standard_b64encode(b"token:dapi-test-token").decode()
    assert all(h.get("Authorization") == f"Basic {token}" for h in workspace.headers)
    assert any(re.search(r"show table extended in cdc_lake_ci\b", s, re.I) for s in workspace.statements), (
        workspace.statements[:10]
    )


def test_platform_macros_dispatch_per_target(workspace: FakeWorkspace, dbt_state: Path, tmp_path: Path) -> None:
    inline = (
        "select '{{ cdc_file_format() }}' as file_format, {{ cdc_is_databricks() }} as is_databricks, "
        "{{ cdc_exact_json('t') }} as exact"
    )
    on_databricks = _dbt(dbt_state, "compile", "--target", "databricks", "--inline", inline)
    compiled = on_databricks.results[0].node.compiled_code.strip()
    assert compiled.startswith("select 'delta' as file_format, True as is_databricks, regexp_replace(")
    # The thrift target (a local Spark Thrift Server) is Spark, not Databricks. Compiling inline SQL
    # opens no connection to it.
    on_thrift = _dbt(tmp_path, "compile", "--target", "thrift", "--inline", inline,
                     "--no-populate-cache")
    assert on_thrift.results[0].node.compiled_code.strip() == (
        "select 'parquet' as file_format, False as is_databricks, cdc_lake_ci.cdc_exact_json(t) as exact"
    )


def test_databricks_run_emits_delta_ddl(workspace: FakeWorkspace, dbt_state: Path, lake: Any) -> None:
    """The statements `dbt run` sends for a table and an incremental model are Delta DDL."""
    _dbt(dbt_state, "run", "--target", "databricks", "--select", "stg_debezium_json__changes", "cdc_ddl")
    ddl = [s for s in workspace.statements if re.search(r"\bcreate\b", s, re.I)]
    staging = [s for s in ddl if "stg_debezium_json__changes" in s]
    ddl_mart = [s for s in ddl if re.search(r"\bcdc_ddl\b", s)]
    assert staging and ddl_mart, ddl
    for statement in staging:
        if re.search(r"\bcreate\b.*\btable\b", statement, re.I | re.S):
            assert re.search(r"\busing delta\b", statement, re.I), statement
            assert re.search(r"partitioned by \(landing_seq\)", statement, re.I), statement
    assert any(re.search(r"\busing delta\b", s, re.I) for s in ddl_mart), ddl_mart
    assert not any(re.search(r"\busing parquet\b", s, re.I) for s in ddl), ddl
    # no JVM functions are created there (the on-run-start hook does nothing on Databricks)
    assert not any(re.search(r"\bcreate\b.*\bfunction\b", s, re.I) for s in workspace.statements)
    # Every statement sent is valid Spark SQL.
    parser = lake.spark._jsparkSession.sessionState().sqlParser()
    for statement in workspace.statements:
        parser.parsePlan(statement)
