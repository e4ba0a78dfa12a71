"""Build ServerCommands directly (no shell layer): each word a literal from a fake script line."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from argtrace.model import EnvValue, Origin, ServerCommand, Word

ENTRYPOINTS = {
    "sglang.launch_server": ("sglang", ["python3", "-m", "sglang.launch_server"], "python3"),
    "sglang serve": ("sglang", ["sglang", "serve"], None),
    "vllm serve": ("vllm", ["vllm", "serve"], None),
    "vllm.entrypoints.openai.api_server": (
        "vllm",
        ["python3", "-m", "vllm.entrypoints.openai.api_server"],
        "python3",
    ),
}


def word(
    text: str | None, col: int, *, expansion: str | None = "literal", line: int = 3, reason: str | None = None
) -> Word:
    return Word(text, Origin(f"launch.sh:{line}:{col}", expansion, text is not None, reason))


def server(
    args: Sequence[str | Word | None],
    *,
    entrypoint: str = "sglang.launch_server",
    env: Mapping[str, str | EnvValue | None] | None = None,
    cwd: str | None = None,
) -> ServerCommand:
    """``args`` are the words after the entry point; a ``None`` is a word that cannot be known."""
    framework, head, interpreter = ENTRYPOINTS[entrypoint]
    words: list[Word] = []
    col = 1
    for text in head:
        words.append(word(text, col))
        col += len(text) + 1
    for a in args:
        if isinstance(a, Word):
            words.append(a)
            col += len(a.text or "x") + 1
            continue
        w = word(
            a,
            col,
            expansion="literal" if a is not None else "$(cmd)",
            reason=None if a is not None else "command substitution",
        )
        words.append(w)
        col += len(a or "x") + 1
    env_values: dict[str, EnvValue] = {}
    for k, v in (env or {}).items():
        env_values[k] = v if isinstance(v, EnvValue) else EnvValue(v, Origin("launch.sh:2:8", f"{k}={v}"))
    return ServerCommand(
        at="launch.sh:3:1",
        framework=framework,  # type: ignore[arg-type]
        argv=tuple(words),
        env=env_values,
        server_args_start=len(head),
        entrypoint=entrypoint,
        interpreter=interpreter,
        cwd=cwd,
    )
