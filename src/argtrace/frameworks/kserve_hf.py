"""KServe's Hugging Face runtime, ``python -m huggingfaceserver``: KServe's options and vLLM's in one argv.

Its parser (kserve/kserve ``python/huggingfaceserver/huggingfaceserver/__main__.py``, module level) holds
``kserve.model_server.parser``'s options (``--model_name``, ``--http_port``...) and its own (``--model_id``,
``--backend``...); with the vLLM backend, ``maybe_add_vllm_cli_parser`` (``huggingfaceserver/vllm/utils.py``)
adds vLLM's ``make_arg_parser`` options to the same parser and ``build_vllm_engine_args`` builds the engine
with ``AsyncEngineArgs.from_cli_args`` from the result. KServe's multi-node runtime
(``config/runtimes/kserve-huggingfaceserver-multinode.yaml``) starts it on the Ray head as
``python -m huggingfaceserver ... --tensor-parallel-size=${TENSOR_PARALLEL_SIZE} ...``. So it is read as
vLLM's ``python -m`` API server with KServe's options taken out: ``frameworks/data/kserve_hf_options.json``,
generated from KServe's source by ``scripts/gen_kserve_hf_options.py`` (not typed here). A KServe option
whose dest is also a vLLM setting (``--max_model_len``, ``--trust_remote_code``) sets that setting, so it is
left to vLLM's parser (``frameworks/vllm.py``). The parser parses with ``parse_known_args``: a word neither
knows is dropped without an error; abbreviations of KServe's options are not modelled (exact spellings only).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from argtrace.frameworks.dynamo import DynamoSplit, _options, _Parser, _take
from argtrace.package_data import bundled_json

ENTRYPOINT = "huggingfaceserver"


@lru_cache(maxsize=1)
def _table() -> tuple[str, _Parser]:
    raw = bundled_json("frameworks/data/kserve_hf_options.json")
    return str(raw["source"]), _options(raw)


def source() -> str:
    """Where the table was generated from (``kserve/kserve@COMMIT: files``)."""
    return _table()[0]


@dataclass
class KServeSplit:
    """A KServe huggingfaceserver argv split as its launcher splits it: the words vLLM's parser gets,
    KServe's own options, and what argparse refuses."""

    engine: list[int] = field(default_factory=list)  # indices of the words vLLM's options get
    kserve: list[tuple[str, str, list[int]]] = field(default_factory=list)  # (option, dest, word indices)
    problems: list[tuple[str, str | None]] = field(default_factory=list)


def split_kserve(words: Sequence[str | None]) -> KServeSplit:
    """The words of ``python -m huggingfaceserver ARGS``: KServe's options (with their values), the rest."""
    parser = _table()[1]
    out = KServeSplit()
    indices = list(range(len(words)))
    taken = DynamoSplit()
    rest = _take(words, indices, parser, taken)
    out.engine = rest
    kept = set(rest)
    gone = [i for i in indices if i not in kept]
    pos = 0
    for flag, values in taken.dynamo:
        count = 1 if (len(values) == 0 or "=" in (words[gone[pos]] or "")) else 1 + len(values)
        dest = parser.options[flag].dest if flag in parser.options else flag.lstrip("-")
        out.kserve.append((flag, dest, gone[pos : pos + count]))
        pos += count
    out.problems = taken.problems
    return out
