"""``--plot``: the SVG and the PNG show the same layout, labels included."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from argtrace.layers.memory.render import plot_layout, png, svg, write_plot

GIB = 1 << 30
SECTION = {
    "gpu": {"name": "h100", "total_bytes": 80 * GIB},
    "verdict": "oom",
    "oom_stage": "kv_cache",
    "breakdown": [
        {"name": "weights", "bytes": 60 * GIB},
        {"name": "kv cache", "bytes": 16 * GIB},
        {"name": "over", "bytes": -6 * GIB},
    ],
}


def test_layout_labels_name_every_row_with_its_size() -> None:
    plot = plot_layout(SECTION)
    assert [label.text for label in plot.labels] == [
        "h100 per GPU: oom at kv_cache",
        "weights: 60.00 GiB",
        "kv cache: 16.00 GiB",
        "over: -6.00 GiB",
        "total 80.00 GiB",
    ]
    bar = [box for box in plot.boxes if box.x == 40 and box.fill]
    # 480 px for 80 GiB: weights 360 px, the KV cache 96 px, the shortfall clipped to the frame (24 px).
    assert [(b.y, b.height) for b in bar] == [(40.0, 360.0), (400.0, 96.0), (496.0, 24.0)]


def test_svg_carries_the_layout_text() -> None:
    text = svg(SECTION)
    assert (
        '<text x="40" y="24" font-size="14" font-weight="bold">h100 per GPU: oom at kv_cache</text>' in text
    )
    assert '<text x="218" y="56">weights: 60.00 GiB</text>' in text
    assert '<rect x="40" y="40.0" width="120" height="360.0" fill="#3f51b5"' in text


def test_png_is_the_same_picture_with_text(tmp_path: Path) -> None:
    target = tmp_path / "budget.png"
    write_plot(SECTION, target)
    image = Image.open(io.BytesIO(target.read_bytes())).convert("RGB")
    plot = plot_layout(SECTION)
    assert image.size == (plot.width, plot.height)
    assert image.getpixel((100, 200)) == (0x3F, 0x51, 0xB5)  # weights
    assert image.getpixel((100, 450)) == (0x2E, 0x7D, 0x32)  # kv cache
    # Every label leaves dark glyph pixels just above its baseline; the area right of the longest is blank.
    for label in plot.labels:
        strip = [
            image.getpixel((x, y))
            for x in range(int(label.x), int(label.x) + 60)
            for y in range(int(label.y) - 9, int(label.y))
        ]
        assert any(sum(px) < 200 for px in strip), label.text
    blank = [image.getpixel((x, 300)) for x in range(400, 640)]
    assert set(blank) == {(255, 255, 255)}
    assert png(SECTION) == target.read_bytes()
