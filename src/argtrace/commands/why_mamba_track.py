"""``why`` on SGLang's Mamba track-index failure in a speculative verify: the releases without the guard.

``set_mamba_track_indices_from_reqs`` (srt/managers/schedule_batch.py) builds a tensor of every request's
``mamba_next_track_idx`` for the verify step of EAGLE/NEXTN/MTP drafts on a hybrid (Mamba) model served with
the extra_buffer strategies (``prepare_for_v2_verify`` under spec v2, ``prepare_mamba_track_for_verify``). A
request whose ping-pong buffer was not allocated yet (spec v2, extra_buffer_lazy) or that finished during the
verify step still carries None, and Python's ``torch.tensor`` build raises "TypeError: 'NoneType' object
cannot be interpreted as an integer" (sglang#27325 on a development build, #28484 on 0.5.13, #29516 and #34786
on 0.5.14). No framework prints these words, so no raise site explains them; the text's function name does.
Which releases build the tensor without a None test is read from the wheels by
scripts/gen_sglang_mamba_track.py (frameworks/data/sglang_mamba_track.json: 0.5.13.post1-0.5.15.post1 without
it, 0.5.16 on with it: sglang PR#27998 reads None as 0).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_TABLE = "frameworks/data/sglang_mamba_track.json"  # written by scripts/gen_sglang_mamba_track.py
_TEXT = re.compile(
    r"set_mamba_track_indices_from_reqs\b[\s\S]{0,2000}?'NoneType' object cannot be interpreted as an integer"
)


def _span(releases: list[str]) -> str:
    return releases[0] if len(releases) == 1 else f"{releases[0]}-{releases[-1]}"


def origin_of_mamba_track(text: str) -> dict[str, Any] | None:
    """The origin of the TypeError in ``set_mamba_track_indices_from_reqs``: the releases that build the
    tensor unguarded, the first that guards it, and the settings that avoid the path; None for another
    text."""
    m = _TEXT.search(text)
    if m is None:
        return None
    from argtrace.frameworks.schema import version_key
    from argtrace.package_data import releases_table

    table = releases_table(_TABLE)
    read = sorted((r for r, f in table.items() if isinstance(f, dict) and f), key=version_key)
    bare = [r for r in read if not table[r].get("guards_none")]
    guarded = [r for r in read if table[r].get("guards_none")]
    if not bare:
        return None
    where = table[bare[-1]]["at"]
    later = (
        f"sglang {guarded[0]} and later read a None index as 0 (sglang PR#27998): run one of them"
        if guarded
        else "no release read guards it"
    )
    return {
        "origin": (
            "SGLang's Mamba track indices for a speculative verify (set_mamba_track_indices_from_reqs, "
            f"sglang/{where} of {bare[-1]}): a request whose Mamba ping-pong buffer was not allocated yet "
            "(spec v2's verify, extra_buffer_lazy) or that finished during the verify still has no track "
            f"index, and sglang {_span(bare)} build the tensor without testing for it: a bug of the release, "
            f"not a setting's check. {later}; else serve without the extra_buffer strategies "
            "(--mamba-scheduler-strategy no_buffer with --disable-radix-cache) or without speculative "
            "decoding"
        ),
        "basis": "wording",
        "evidence": "set_mamba_track_indices_from_reqs ... 'NoneType' object cannot be interpreted as an "
        "integer",
        "source": "https://github.com/sgl-project/sglang/issues/28484",
    }
