"""PyTorch's shape errors inside speculative decoding: the draft's and the target's sizes.

A tensor shape error is PyTorch's own words ("Sizes of tensors must match except in dimension 0. Expected size
4096 but got size 2048", "The expanded size of the tensor (1024) must match the existing size (4096)"), not a
check of a setting, so no framework raise site explains it. When the traceback or the text is in speculative
decoding's code (an EAGLE/MTP/draft proposer, ``speculative/``, ``spec_decode/``), the two sizes are the draft
model's and the target model's: on real reports a draft whose hidden size differs from the target's, on a path
that copies the target's hidden states into the draft's buffers (sglang#24215: STANDALONE with Llama-3.2-1B,
2048, under Llama-3.1-8B, 4096, in ``speculative/eagle_info.py``'s ``merge_batch``; vllm-ascend#7365:
``draft_model`` with Qwen3-0.6B, 1024, under Qwen3-8B, 4096, in its EAGLE proposer). Which models the launch
named is not in the text, so the origin says what the sizes are and rests on the frames.
"""

from __future__ import annotations

import re

# torch's wordings with the two sizes and where they differ: ATen's cat compares every dimension but the one
# it joins along ("except in dimension 0": the features of [tokens, features] tensors), expand and the
# elementwise check name the dimension; only a difference in dimension 1, the hidden states' features, is
# read as two models' hidden sizes (sglang#13352's "except in dimension 1. Expected size 6 but got size 8"
# is a count of tokens, from --speculative-eagle-topk under SGLANG_ENABLE_SPEC_V2, and stays unexplained
# here)
_SIZES = (
    re.compile(r"Sizes of tensors must match except in dimension 0\. Expected size (\d+) but got size (\d+)"),
    re.compile(
        r"The expanded size of the tensor \((\d+)\) must match the existing size \((\d+)\) at "
        r"non-singleton dimension 1\b"
    ),
    re.compile(
        r"(?i)the size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at non-singleton "
        r"dimension 1\b"
    ),
)
# speculative decoding's code: its directories and its proposers' names, in a frame's path or the text
_SPECULATIVE = re.compile(
    r"[/\\](?:speculative|spec_decode)[/\\]|\w*(?:eagle|mtp|draft|medusa)\w*_(?:proposer|worker|info)\.py"
    r"|spec_decode\w*[/\\]|\bspeculative[-_ ]decoding\b",
    re.IGNORECASE,
)
_FRAME = re.compile(r'File "([^"\n]+?\.py)"(?:, line (\d+), in ([\w.<>]+))?')

SOURCE = "https://github.com/sgl-project/sglang/issues/24215"


def origin_of_shape(text: str) -> dict[str, str] | None:
    """PyTorch's shape error in speculative decoding's code: the origin naming the two sizes as the draft's
    and the target's; None for a shape error elsewhere (another wording says what it is) or any other
    text."""
    sizes = next((m for p in _SIZES if (m := p.search(text))), None)
    if sizes is None:
        return None
    where = _SPECULATIVE.search(text)
    if where is None:
        return None
    frames = [f for f in _FRAME.findall(text) if _SPECULATIVE.search(f[0])]
    place = ""
    if frames:
        path, _line, function = frames[-1]
        tail = "/".join(re.split(r"[/\\]", path)[-2:])
        place = f" ({tail}{', in ' + function if function else ''})"
    a, b = sizes.group(1), sizes.group(2)
    return {
        "origin": (
            f"PyTorch's shape check in speculative decoding's code{place}: sizes {a} and {b}, most likely "
            "the target's and the draft's hidden sizes: use a draft of the target's hidden size (an "
            "EAGLE/MTP draft made for the target, or a model of the same hidden size), or a release "
            "whose path projects between them; no launch value is checked there"
        ),
        "basis": "wording",
        "evidence": sizes.group(0),
        "source": SOURCE,
    }
