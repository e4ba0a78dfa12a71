"""SGLang's NGRAM trie sized no larger than the suffixes it must hold (RS066).

NGRAM speculative decoding inserts each request's token suffixes, up to ``--speculative-ngram-max-trie-depth``
tokens long, into a trie of ``--speculative-ngram-capacity`` nodes whose root takes one of them (SGLang
0.5.23 ``kernels/jit/csrc/ngram_corpus/trie.cpp:14-21``, 0.5.10.post1 ``jit_kernel/csrc/ngram_corpus/
trie.cpp:12-19``). A capacity at or below the depth leaves fewer free nodes than one full-depth suffix needs,
and ``Trie::insert`` then evicts from an empty LRU list (``munmap_chunk(): invalid pointer``, sglang#36495)
or raises "Insufficient node size to release required nodes": the first request stops the server. Both
values are the parser's (a flag the launch does not give is its release's default); a release that does not
register both flags (before 0.5.10.post1) says nothing.
"""

from __future__ import annotations

from argtrace.model import Evidence, LayerResult, Report, Setting

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def ngram_trie(report: Report) -> LayerResult:
    """RS066 for an SGLang NGRAM launch whose trie capacity is not above its depth."""
    result = LayerResult()
    if report.framework.name != "sglang":
        return result
    algorithm = report.setting("speculative_algorithm")
    if (
        algorithm is None
        or not isinstance(algorithm.effective, str)
        or algorithm.effective.upper() != "NGRAM"
    ):
        return result
    capacity = report.setting("speculative_ngram_capacity")
    depth = report.setting("speculative_ngram_max_trie_depth")
    given = [s for s in (capacity, depth) if s is not None and s.intended is not None]
    if not given:
        return result  # the release's defaults (10000000 nodes, depth 18) fit
    nodes = _value(report, capacity, "--speculative-ngram-capacity")
    longest = _value(report, depth, "--speculative-ngram-max-trie-depth")
    if nodes is None or longest is None or nodes > longest:
        return result
    # where the user wrote a value: the capacity when given, else the depth (the capacity is its default)
    written = given[0]
    at = next((o.at for o in written.history if o.at), None)
    if nodes == longest:
        stops = (
            "Trie::insert evicts a node from an empty LRU list and frees an invalid pointer "
            '("munmap_chunk(): invalid pointer"), which aborts the scheduler'
        )
    else:
        stops = 'Trie::squeeze raises "Insufficient node size to release required nodes"'
    from argtrace.rules.start_values import RS066

    result.findings.append(
        RS066.finding(
            f"--speculative-ngram-capacity {nodes} is not above --speculative-ngram-max-trie-depth "
            f"{longest}: the NGRAM trie holds {nodes} nodes and its root takes one, so a suffix of "
            f"{longest} tokens finds {nodes - 1} free; once a request holds {nodes} tokens {stops}, and the "
            "server stops",
            at=at,
            evidence=[
                Evidence(
                    "parser",
                    at,
                    f"speculative_ngram_capacity={nodes}, speculative_ngram_max_trie_depth={longest}, "
                    "speculative_algorithm=NGRAM",
                )
            ],
            setting=written.name,
            fix=f"give --speculative-ngram-capacity a value above {longest} (its default is 10000000), or "
            f"lower --speculative-ngram-max-trie-depth below {nodes}",
        )
    )
    return result


def _value(report: Report, setting: Setting | None, flag: str) -> int | None:
    """The setting's parsed value, or the analysed release's default when the launch does not give it (a
    release whose schema does not register the flag has no NGRAM trie of this shape: ``None``)."""
    if setting is not None and setting.effective is not None:
        return _count(setting.effective)
    from argtrace.frameworks.schema import load_schema

    release = report.framework.release
    spec = load_schema("sglang", release).option(flag) if release else None
    return _count(spec.default) if spec is not None else None


def _count(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    try:
        return int(str(value))
    except ValueError:
        return None
