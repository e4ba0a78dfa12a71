"""Python equivalents of SGLang's ``type=`` converters, by name (``sglang.converter``), read when an
option of the launch names one."""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable

from argtrace import safe_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def human_readable_int(value: str) -> int:
    """SGLang's ``human_readable_int``: SI k/M/G/T (decimals allowed) and IEC Ki/Mi/Gi/Ti, case-sensitive."""
    value = value.strip()
    si = {"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
    iec = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)", value)
    if match:
        from decimal import Decimal  # only for a suffixed value: every check imports this module

        number, suffix = match.groups()
        if suffix in iec:
            if "." in number:
                raise argparse.ArgumentTypeError(
                    f"Decimals are not allowed with IEC suffixes like '{suffix}'. "
                    f"Use an integer IEC value such as '{int(Decimal(number))}{suffix}', "
                    f"or an SI value such as '{number}{suffix[0]}'."
                )
            return int(number) * iec[suffix]
        return int(Decimal(number) * si[suffix])
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"Invalid integer value: '{value}'. "
            "Use a plain integer, SI suffixes (1k, 1M), or IEC suffixes (1Ki, 1Mi). "
            "Suffixes are case-sensitive."
        ) from None


def nullable_str(val: str) -> str | None:
    if not val or val == "None":
        return None
    return val


def json_list_type(value: str) -> Any:
    try:
        return safe_json.loads(value)
    except json.JSONDecodeError:
        raise argparse.ArgumentTypeError(
            f"Invalid JSON list: {value}. Please provide a valid JSON list."
        ) from None


def parse_cuda_graph_backend_arg(raw: str) -> str:
    """0.5.19+: the retired ``tc_piecewise`` backend is rejected before the choices check."""
    if raw == "tc_piecewise":
        raise argparse.ArgumentTypeError("tc_piecewise was removed; select breakable, full, or disabled")
    return raw


def parse_cuda_graph_config_arg(raw: str) -> Any:
    """0.5.15+: ``--cuda-graph-config`` is a JSON object of phase -> settings (the per-phase key check of
    the real converter is not reproduced)."""
    try:
        parsed = safe_json.loads(raw)
    except json.JSONDecodeError as e:
        raise argparse.ArgumentTypeError(f"--cuda-graph-config must be JSON: {e}") from None
    if not isinstance(parsed, dict):
        raise argparse.ArgumentTypeError(
            f"--cuda-graph-config must be a JSON object, got {type(parsed).__name__}"
        )
    return parsed


CONVERTERS: dict[str, Callable[[str], Any]] = {
    "parse_cuda_graph_backend_arg": parse_cuda_graph_backend_arg,
    "parse_cuda_graph_config_arg": parse_cuda_graph_config_arg,
    "human_readable_int": human_readable_int,
    "nullable_str": nullable_str,
    "json_list_type": json_list_type,
}
