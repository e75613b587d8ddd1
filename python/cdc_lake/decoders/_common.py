"""What both binary decoders share: the error they raise and how an envelope is written."""

from __future__ import annotations

import json
from typing import Any


class DecodeError(ValueError):
    """The bytes are not a message of the format; the text says what is wrong."""


def envelope_json(envelope: Any) -> str:
    """The JSON text of an envelope: compact, non-ASCII characters kept as they are."""
    return json.dumps(envelope, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def describe(exc: BaseException) -> str:
    """An exception as `Type: message` (some decoders raise exceptions with an empty message)."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
