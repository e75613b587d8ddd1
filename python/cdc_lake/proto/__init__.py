"""Canal's protobuf classes, generated from `canal.proto` with protoc on first use.

The generated module is never committed. `load_canal_pb2()` compiles `canal.proto` with the
protoc bundled in grpcio-tools (a runtime dependency, whose pin on protobuf guarantees that the
generated code matches the installed protobuf runtime) into a cache directory, then imports it.
The cache key is a hash of the .proto text and of the protobuf/grpcio-tools versions, so editing
the .proto or upgrading either package regenerates it. `scripts/setup.sh` calls it once after
`pip install`, so the first landing does not pay for it; Spark's Python workers find the cached
module (or generate it themselves: the file is written to a temporary name, then renamed into
place, so concurrent workers never read a half-written module).

Cache directory, first that is writable: $CDC_LAKE_PROTO_CACHE, `_generated/` next to this file
(ignored by git), ~/.cache/cdc-lake/proto, the system temp directory.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
from pathlib import Path
from types import ModuleType

PROTO_FILE = Path(__file__).with_name("canal.proto")
MODULE_NAME = "cdc_lake.proto.canal_pb2"
_lock = threading.Lock()


class ProtoGenerationError(RuntimeError):
    """protoc could not compile canal.proto (the message holds protoc's exit status)."""


def _cache_key() -> str:
    import google.protobuf
    from grpc_tools import grpc_version

    digest = hashlib.sha256(PROTO_FILE.read_bytes())
    digest.update(f"protobuf={google.protobuf.__version__};grpcio-tools={grpc_version.VERSION}".encode())
    return digest.hexdigest()[:16]


def _cache_dirs() -> list[Path]:
    dirs = []
    if os.environ.get("CDC_LAKE_PROTO_CACHE"):
        dirs.append(Path(os.environ["CDC_LAKE_PROTO_CACHE"]))
    dirs.append(PROTO_FILE.parent / "_generated")
    dirs.append(Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "cdc-lake" / "proto")
    dirs.append(Path(tempfile.gettempdir()) / f"cdc-lake-proto-{os.getuid() if hasattr(os, 'getuid') else 0}")
    return dirs


def _generate(target: Path) -> None:
    from grpc_tools import protoc

    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".protoc-") as tmp:
        status = protoc.main(
            ["protoc", f"--proto_path={PROTO_FILE.parent}", f"--python_out={tmp}", str(PROTO_FILE)]
        )
        if status != 0:
            raise ProtoGenerationError(f"protoc failed on {PROTO_FILE} (exit status {status})")
        os.replace(Path(tmp) / "canal_pb2.py", target)


def _import(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(MODULE_NAME, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[MODULE_NAME] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[MODULE_NAME]
        raise
    return module


def load_canal_pb2() -> ModuleType:
    """The generated module: `CanalEntry.Entry`, `CanalEntry.RowChange`, `CanalPacket.Packet`, ..."""
    module = sys.modules.get(MODULE_NAME)
    if module is not None:
        return module
    with _lock:
        module = sys.modules.get(MODULE_NAME)
        if module is not None:
            return module
        key = _cache_key()
        errors = []
        for base in _cache_dirs():
            target = base / key / "canal_pb2.py"
            if not target.is_file():
                try:
                    _generate(target)
                except OSError as exc:  # not writable: try the next cache directory
                    errors.append(f"{base}: {exc}")
                    continue
            return _import(target)
        raise ProtoGenerationError("no writable cache directory for canal_pb2: " + "; ".join(errors))
