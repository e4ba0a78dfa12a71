"""Text and SVG views of the ``memory`` section. Renderers read the finished section; they never compute.

``register()`` adds the text view to ``argtrace.render.text.SECTION_RENDERERS`` (the registry meant for
later layers); ``write_plot`` draws the per-GPU budget as a stacked bar in SVG, written by hand because
matplotlib is not a dependency (a PNG is rasterised from the same rectangles, without text, see docs).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

GIB = float(1 << 30)
COLORS = {
    "context + other processes": "#9e9e9e",
    "weights": "#3f51b5",
    "kv cache": "#2e7d32",
    "mamba state": "#f9a825",
    "mamba speculative states": "#ef6c00",
    "draft weights": "#6a1b9a",
    "draft kv cache": "#ab47bc",
    "cuda graphs (est.)": "#00838f",
    "activations (est.)": "#80deea",
    "free": "#eeeeee",
    "over": "#c62828",
}
SYMBOLS = {
    "context + other processes": ".",
    "weights": "W",
    "kv cache": "K",
    "mamba state": "M",
    "mamba speculative states": "S",
    "draft weights": "D",
    "draft kv cache": "d",
    "cuda graphs (est.)": "G",
    "activations (est.)": "A",
    "free": " ",
    "over": "!",
}


def _g(value: Any) -> str:
    return "—" if value is None else f"{float(value) / GIB:.2f} GiB"


def text_bar(breakdown: list[Mapping[str, Any]], total: int, width: int = 60) -> str:
    cells = []
    for row in breakdown:
        n = max(round(abs(row["bytes"]) / max(total, 1) * width), 1 if row["bytes"] else 0)
        cells.append(SYMBOLS.get(row["name"], "?") * n)
    return "[" + "".join(cells)[: width + 10] + "]"


def memory_text(section: Mapping[str, Any]) -> str:
    lines: list[str] = []
    gpu = section.get("gpu") or {}
    head = f"Memory per GPU ({section.get('formulas') or section.get('framework')}"
    if isinstance(gpu, Mapping) and gpu:
        head += f", {gpu.get('name')}: {gpu.get('label')}, {_g(gpu.get('total_bytes'))}"
    lines.append(head + ")")
    breakdown = section.get("breakdown") or []
    for row in breakdown:
        lines.append(f"  {SYMBOLS.get(row['name'], '?')} {row['name']:<28} {row['bytes'] / GIB:>9.2f} GiB")
    if breakdown and isinstance(gpu, Mapping) and gpu.get("total_bytes"):
        lines.append("  " + text_bar(breakdown, int(gpu["total_bytes"])))
    lines.append(
        f"  KV {section.get('kv_bytes_per_token')} B/token"
        + (
            f", Mamba {(section.get('mamba_conv_bytes_per_slot') or 0) + section['mamba_ssm_bytes_per_slot']}"
            " B/slot"
            if section.get("mamba_ssm_bytes_per_slot")
            else ""
        )
        + f"; mem_fraction_static {section.get('mem_fraction_static')}"
        + ("" if section.get("mem_fraction_static_given", True) else " (computed)")
    )

    def show(key: str) -> str:
        value = section.get(key)
        return "—" if value is None else str(value)

    lines.append(
        f"  max_total_num_tokens {show('max_total_num_tokens')}, "
        f"max_mamba_cache_size {show('max_mamba_cache_size')}, "
        f"max_running_requests {show('max_running_requests')}"
    )
    verdict = section.get("verdict")
    if verdict == "oom":
        lines.append(
            f"  verdict: OOM at {section.get('oom_stage')} (margin {_g(section.get('margin_bytes'))})"
        )
    elif verdict:
        lines.append(f"  verdict: fits (margin {_g(section.get('margin_bytes'))})")
    for s in section.get("suggested") or []:
        lines.append(
            f"  try: {' '.join(s['flags'])}  -> tokens {s['max_total_num_tokens']}, "
            + (f"slots {s['max_mamba_cache_size']}, " if s.get("max_mamba_cache_size") is not None else "")
            + f"requests {s['max_running_requests']} (cost: {s['cost']})"
        )
    log = section.get("from_log")
    if log:
        lines.append(f"  compared with {log.get('path')}:")
        for row in log.get("rows") or []:
            mark = "ok " if row["ok"] else "OFF"
            lines.append(f"    {mark} {row['quantity']}: predicted {row['predicted']}, log {row['logged']}")
    return "\n".join(lines)


def register() -> None:
    try:
        from rich.text import Text

        from argtrace.render.text import SECTION_RENDERERS
    except ImportError:  # the renderer is somebody else's module; degrade to the generic view
        return
    SECTION_RENDERERS.setdefault("memory", lambda section: Text(memory_text(section)))


def svg(section: Mapping[str, Any]) -> str:
    gpu = section.get("gpu") or {}
    total = float(gpu.get("total_bytes") or 1) if isinstance(gpu, Mapping) else 1.0
    rows = section.get("breakdown") or []
    width, bar_x, bar_w, top, height = 640, 40, 120, 40, 480
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{top + height + 40}" '
        'font-family="sans-serif" font-size="12">',
        f'<text x="{bar_x}" y="24" font-size="14" font-weight="bold">'
        f"{_esc(str(gpu.get('name', '')) if isinstance(gpu, Mapping) else '')} per GPU: "
        f"{_esc(str(section.get('verdict')))}"
        f"{' at ' + _esc(str(section.get('oom_stage'))) if section.get('oom_stage') else ''}"
        "</text>",
    ]
    y = float(top)
    for i, row in enumerate(rows):
        h = abs(row["bytes"]) / total * height
        color = COLORS.get(row["name"], "#607d8b")
        parts.append(
            f'<rect x="{bar_x}" y="{y:.1f}" width="{bar_w}" height="{max(h, 0.5):.1f}" fill="{color}" '
            'stroke="#ffffff" stroke-width="0.5"/>'
        )
        ly = top + 16 + i * 20
        parts.append(f'<rect x="{bar_x + bar_w + 40}" y="{ly - 10}" width="12" height="12" fill="{color}"/>')
        parts.append(
            f'<text x="{bar_x + bar_w + 58}" y="{ly}">'
            f"{_esc(row['name'])}: {row['bytes'] / GIB:.2f} GiB</text>"
        )
        y += h
    parts.append(f'<rect x="{bar_x}" y="{top}" width="{bar_w}" height="{height}" fill="none" stroke="#000"/>')
    parts.append(f'<text x="{bar_x}" y="{top + height + 20}">total {total / GIB:.2f} GiB</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _png(section: Mapping[str, Any]) -> bytes:
    """The stacked bar alone (no text), 200x520 RGB, with the standard library only."""
    gpu = section.get("gpu") or {}
    total = float(gpu.get("total_bytes") or 1) if isinstance(gpu, Mapping) else 1.0
    w, h, bar_x, bar_w, top, bar_h = 200, 520, 40, 120, 20, 480
    pixels = [[(255, 255, 255)] * w for _ in range(h)]
    y = float(top)
    for row in section.get("breakdown") or []:
        color = COLORS.get(row["name"], "#607d8b")
        rgb = (int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16))
        end = min(y + abs(row["bytes"]) / total * bar_h, top + bar_h)
        for yy in range(int(y), int(end)):
            for xx in range(bar_x, bar_x + bar_w):
                pixels[yy][xx] = rgb
        y = end
    raw = b"".join(b"\x00" + bytes(c for px in line for c in px) for line in pixels)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def write_plot(section: Mapping[str, Any], path: Path) -> None:
    """``.svg`` (labelled) or ``.png`` (bar only); raises ValueError for other suffixes."""
    suffix = path.suffix.lower()
    if suffix == ".svg":
        path.write_text(svg(section), encoding="utf-8")
    elif suffix == ".png":
        path.write_bytes(_png(section))
    else:
        raise ValueError(f"--plot wants a .svg or .png file, got {path.name!r}")
