"""PA001's "did you mean" for a flag no bundled release knows: offered only when the release's flag is a
misspelling of it (``layers/parser/releases.same_feature``), checked against the renames of the bundled
releases' history (computed from the release index and the schemas, not typed here), real case 20
(sglang#37646) and a fork's flag in a real launch script (WittenYeh/LSMCache ``server.sh``)."""

from __future__ import annotations

import difflib
import functools

import pytest

from argtrace.frameworks.release_index import release_index
from argtrace.frameworks.schema import Schema, load_schema
from argtrace.layers.parser.releases import _nearest, _replacement, same_feature


@functools.cache
def renames() -> tuple[tuple[str, str, Schema], ...]:
    """(old flag, its replacement, the first release without the old flag) for every long option string a
    bundled release drops whose replacement the parser layer finds in the next one (``_replacement``: the
    same dest, a deprecated alias's new flag, a "renamed to"/"use" pointer in the help text)."""
    out = []
    for framework in ("sglang", "vllm"):
        index = release_index(framework)
        history = [load_schema(framework, v) for v in index.releases]
        for i in range(1, len(history)):
            for flag, known in sorted(index.flags.items()):
                if flag.startswith("--") and i - 1 in known and i not in known:
                    new = _replacement(flag, history[i], history[:i])
                    if new:
                        out.append((flag, new, history[i]))
    return tuple(out)


def _difflib_nearest(flag: str, schema: Schema) -> str | None:
    """The suggestion before same_feature: difflib's closest long option string, whatever it names."""
    longs = [s for s in schema.option_strings if s.startswith("--")]
    found = difflib.get_close_matches(flag, longs, n=1, cutoff=0.6)
    return found[0] if found else None


def test_every_rename_is_named_by_the_history_and_most_spellings_still_by_the_suggestion() -> None:
    # A renamed flag reaches the check as a flag of older releases (PA003 names the new spelling from the
    # history); _nearest serves flags no release knew, so it offers misspellings only. Of the renames whose
    # new spelling difflib found, the four with a word substituted (`--mamba-scheduler-strategy` ->
    # `--mamba-radix-cache-strategy`) are the history's alone.
    right = [(old, new, s) for old, new, s in renames() if _difflib_nearest(old, s) == new]
    assert len(right) >= 19  # 19 of the 47 renames of the bundled releases (2026-12-02)
    assert sorted(old for old, new, s in right if _nearest(old, s) != new) == [
        "--elastic-ep-rejoin",
        "--enable-gdn-replayssm-spec",
        "--mamba-scheduler-strategy",
        "--piecewise-cuda-graph-compiler",
    ]


def test_most_suggestions_that_named_another_feature_are_gone() -> None:
    """Measured on the bundled renames: difflib named another flag than the replacement for 25 of them
    (2026-12-03; ``--enable-reasoning`` -> ``--enable-prefix-caching``). One is left: a word dropped
    (``--disable-piecewise-cuda-graph`` -> ``--disable-cuda-graph``), which reads as a misspelling."""
    wrong_before = [(o, n, s) for o, n, s in renames() if _difflib_nearest(o, s) not in (None, n)]
    wrong_now = [(o, n, s) for o, n, s in renames() if _nearest(o, s) not in (None, n)]
    assert len(wrong_before) >= 25
    assert [(o, _nearest(o, s)) for o, _n, s in wrong_now] == [
        ("--disable-piecewise-cuda-graph", "--disable-cuda-graph")
    ]
    assert {o for o, _n, _s in wrong_now} <= {o for o, _n, _s in wrong_before}


@pytest.mark.parametrize(
    ("typed", "known", "same"),
    [
        ("--mem-fraction-statc", "--mem-fraction-static", True),  # a typo
        ("--cuda-graph-bs", "--cuda-graph-bs-decode", True),  # a word added
        ("--enable-dsa-prefill-context-parallel", "--enable-prefill-cp", True),  # initials
        ("--cuda-graph-sizes", "--cudagraph-capture-sizes", True),  # words joined
        # a word substituted: another feature unless the history says it was renamed (PA003)
        ("--mamba-scheduler-strategy", "--mamba-radix-cache-strategy", False),
        # WittenYeh/LSMCache server.sh: a fork's flag; `kvstore` ends with `store`, not a store of responses
        ("--enable-kvstore", "--enable-response-store", False),
        ("--enable-kv-store", "--enable-kvstore", True),  # words joined
        # sglang#37646: a pure (non-fused) allreduce is not the allreduce fusion
        ("--enable-flashinfer-pure-allreduce", "--enable-flashinfer-allreduce-fusion", False),
        ("--enable-piecewise-cuda-graph", "--disable-piecewise-cuda-graph", False),  # the opposite
        ("--is-decode-worker", "--dbo-decode-token-threshold", False),  # Dynamo's role flag
        ("--worker-use-ray", "--ray-workers-use-nsight", False),  # the words in another order, one new
        ("--enable-reasoning", "--enable-prefix-caching", False),
    ],
)
def test_same_feature(typed: str, known: str, same: bool) -> None:
    assert same_feature(typed, known) is same


def test_no_suggestion_for_a_flag_like_none_of_the_release_s() -> None:
    schema = load_schema("sglang", "0.5.18")
    assert (
        _difflib_nearest("--enable-flashinfer-pure-allreduce", schema)
        == "--enable-flashinfer-allreduce-fusion"
    )
    assert _nearest("--enable-flashinfer-pure-allreduce", schema) is None
    assert _nearest("--enable-flashinfer-allreduce-fusoin", schema) == "--enable-flashinfer-allreduce-fusion"
