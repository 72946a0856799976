"""Reading the site's data files back in tests: ``perfwalk.<call>(a, b, {...});``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

_CALL = re.compile(r'perfwalk\.(\w+)\((?:(?:\d+|"[0-9a-f]+"),)+(.*)\);\n', re.DOTALL)


def read_data(path: Path) -> tuple[str, Any]:
    """(the function a data file calls, its last argument); the file must be exactly
    one such call with JSON arguments."""
    found = _CALL.fullmatch(path.read_text(encoding="utf-8"))
    assert found, f"{path} is not one perfwalk.<call>(…); line of JSON"
    return found.group(1), json.loads(found.group(2))
