"""Text and SVG views of the ``memory`` section. Renderers read the finished section; they never compute.

``register()`` adds the text view to ``argtrace.render.text.SECTION_RENDERERS`` (the registry meant for
later layers); ``write_plot`` draws the per-GPU budget as a stacked bar: ``plot_layout`` decides every box
and label, ``svg`` writes them as text and ``png`` rasterises the same layout with Pillow (imported only
then), so the two files always show the same numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
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
    "caches needed (not allocated)": "#ef9a9a",
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
    "caches needed (not allocated)": "x",
    "free": " ",
    "over": "!",
}


def _g(value: Any) -> str:
    return "—" if value is None else f"{float(value) / GIB:.2f} GiB"


def text_bar(breakdown: list[Mapping[str, Any]], total: int, width: int = 60) -> str:
    cells = []
    for row in breakdown:
        # Capped: a row far larger than the GPU (an absurd config) must not build a gigantic string.
        n = min(max(round(abs(row["bytes"]) / max(total, 1) * width), 1 if row["bytes"] else 0), width + 10)
        cells.append(SYMBOLS.get(row["name"], "?") * n)
    return "[" + "".join(cells)[: width + 10] + "]"


def _pipeline_lines(pipeline: Any) -> list[str]:
    """With PP: which stage the figures below are (the worst), and one line per stage."""
    if not isinstance(pipeline, Mapping) or not pipeline.get("stages"):
        return []
    worst = pipeline["worst_stage"]
    stages = pipeline["stages"]
    row = stages[worst]
    first, last = row["layers"][0], row["layers"][1] - 1
    out = [
        f"  pipeline stage {worst} of {pipeline['pp_size']} (layers {first}-{last}) "
        + (
            "is the one whose rank printed the log"
            if pipeline.get("reported") == "log"
            else "runs out first"
            if row["verdict"] == "oom"
            else "has the least room"
        )
        + f"; the figures below are its ranks' (split: {pipeline['partition_basis']})"
    ]
    for r in stages:
        extras = "+".join(x for x, on in (("embedding", r["embedding"]), ("lm_head", r["lm_head"])) if on)
        out.append(
            f"    stage {r['stage']}: layers {r['layers'][0]}-{r['layers'][1] - 1}"
            + (f" + {extras}" if extras else "")
            + f", weights {_g(r['weights_bytes'])}, "
            + (f"OOM at {r['oom_stage']}" if r["verdict"] == "oom" else f"margin {_g(r['margin_bytes'])}")
        )
    return out


def memory_text(section: Mapping[str, Any]) -> str:
    lines: list[str] = []
    gpu = section.get("gpu") or {}
    head = f"Memory per GPU ({section.get('source') or section.get('formulas') or section.get('framework')}"
    if isinstance(gpu, Mapping) and gpu.get("estimate"):  # described on the command line: its total estimated
        head += f", {gpu.get('label')}, {_g(gpu.get('total_bytes'))} estimated"
    elif isinstance(gpu, Mapping) and gpu:
        head += f", {gpu.get('name')}: {gpu.get('label')}, {_g(gpu.get('total_bytes'))}"
    lines.append(head + ")")
    if isinstance(gpu, Mapping) and gpu.get("estimate"):
        lines.append(f"  GPU {gpu['estimate']}")
    lines += _pipeline_lines(section.get("pipeline"))
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
        rest, margin = section.get("rest_bytes"), section.get("margin_bytes")
        if (
            section.get("oom_stage") in ("kv_cache", "mamba_cache")
            and rest is not None
            and margin is not None
        ):
            lines.append(
                f"  mem_fraction_static {section.get('mem_fraction_static')} leaves the caches "
                f"{_g(max(rest, 0))} after the weights; they need {_g(max(rest, 0) - margin)}"
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


@dataclass(frozen=True)
class Box:
    """A rectangle of the memory chart's SVG."""

    x: float
    y: float
    width: float
    height: float
    fill: str | None  # None: outline only
    stroke: str | None = None


@dataclass(frozen=True)
class Label:
    """A text of the memory chart's SVG."""

    x: float
    y: float  # the text's baseline, as SVG places it
    text: str
    size: int = 12
    bold: bool = False


@dataclass(frozen=True)
class Plot:
    """What the budget plot shows, in pixels; ``svg`` and ``png`` only draw it."""

    width: int
    height: int
    boxes: tuple[Box, ...]
    labels: tuple[Label, ...]


def plot_layout(section: Mapping[str, Any]) -> Plot:
    """The per-GPU budget as one stacked bar (top: first row of ``breakdown``) with a legend and a title."""
    gpu = section.get("gpu") or {}
    total = float(gpu.get("total_bytes") or 1) if isinstance(gpu, Mapping) else 1.0
    rows = section.get("breakdown") or []
    width, bar_x, bar_w, top, height = 640, 40, 120, 40, 480
    name = str(gpu.get("name", "")) if isinstance(gpu, Mapping) else ""
    stage = f" at {section.get('oom_stage')}" if section.get("oom_stage") else ""
    labels = [Label(bar_x, 24, f"{name} per GPU: {section.get('verdict')}{stage}", size=14, bold=True)]
    boxes = []
    y = float(top)
    for i, row in enumerate(rows):
        h = min(abs(row["bytes"]) / total * height, top + height - y)
        color = COLORS.get(row["name"], "#607d8b")
        boxes.append(Box(bar_x, y, bar_w, max(h, 0.5), color, stroke="#ffffff"))
        ly = top + 16 + i * 20
        boxes.append(Box(bar_x + bar_w + 40, ly - 10, 12, 12, color))
        labels.append(Label(bar_x + bar_w + 58, ly, f"{row['name']}: {row['bytes'] / GIB:.2f} GiB"))
        y += max(h, 0)
    boxes.append(Box(bar_x, top, bar_w, height, None, stroke="#000000"))
    labels.append(Label(bar_x, top + height + 20, f"total {total / GIB:.2f} GiB"))
    return Plot(width, top + height + 40, tuple(boxes), tuple(labels))


def svg(section: Mapping[str, Any]) -> str:
    plot = plot_layout(section)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{plot.width}" height="{plot.height}" '
        'font-family="sans-serif" font-size="12">'
    ]
    for box in plot.boxes:
        stroke = f' stroke="{box.stroke}" stroke-width="{0.5 if box.fill else 1}"' if box.stroke else ""
        parts.append(
            f'<rect x="{box.x:g}" y="{box.y:.1f}" width="{box.width:g}" height="{box.height:.1f}" '
            f'fill="{box.fill or "none"}"{stroke}/>'
        )
    for label in plot.labels:
        style = f' font-size="{label.size}"' if label.size != 12 else ""
        style += ' font-weight="bold"' if label.bold else ""
        parts.append(f'<text x="{label.x:g}" y="{label.y:g}"{style}>{_esc(label.text)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def png(section: Mapping[str, Any]) -> bytes:
    """The same picture as ``svg``, rasterised with Pillow (its bundled font: no system fonts needed)."""
    import io

    from PIL import Image, ImageDraw, ImageFont

    plot = plot_layout(section)
    image = Image.new("RGB", (plot.width, plot.height), "#ffffff")
    draw = ImageDraw.Draw(image)
    for box in plot.boxes:
        corners = (box.x, box.y, box.x + box.width - 1, box.y + box.height - 1)
        draw.rectangle(corners, fill=box.fill, outline=box.stroke if not box.fill else None)
    for label in plot.labels:
        font = ImageFont.load_default(size=label.size)
        # SVG's y is the baseline; Pillow's "ls" anchor (left, baseline) places it the same way.
        draw.text((label.x, label.y), label.text, fill="#000000", font=font, anchor="ls")
        if label.bold:
            draw.text((label.x + 1, label.y), label.text, fill="#000000", font=font, anchor="ls")
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def write_plot(section: Mapping[str, Any], path: Path) -> None:
    """``.svg`` or ``.png`` (the same picture); raises ValueError for other suffixes."""
    suffix = path.suffix.lower()
    if suffix == ".svg":
        path.write_text(svg(section), encoding="utf-8")
    elif suffix == ".png":
        path.write_bytes(png(section))
    else:
        raise ValueError(f"--plot wants a .svg or .png file, got {path.name!r}")
