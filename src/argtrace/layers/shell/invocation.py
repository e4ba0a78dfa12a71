"""How ``bash``/``sh`` read their own invocation, and ``sbatch --wrap``, which starts one.

This module owns the option grammar of a shell started as a command (``bash -lc 'vllm serve ...'``), so the
shell layer finds the command string behind grouped options as the shell itself does, and the ``sh -c``
that ``sbatch --wrap=STRING`` amounts to.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from argtrace.layers.shell.core import HOLE, ExpWord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.slurm import Export


def shell_invocation(texts: Sequence[str | None]) -> tuple[int, bool]:
    """Where a ``bash``/``sh`` invocation's first non-option argument is, and whether ``-c`` makes it the
    command string. Bash's manual ("Invoking Bash"): single-letter options may be grouped (``-lc``, ``-ec``,
    ``-xc``, ``-lic``), ``-o``/``+o`` and ``-O``/``+O`` take the next word, ``--rcfile``/``--init-file`` take
    the next word, ``--`` ends the options; with ``-c`` anywhere among them, "commands are read from the
    first non-option argument command_string". POSIX sh (``sh -ec``) groups the same way."""
    i, shell_c = 1, False
    while i < len(texts) and texts[i] is not None:
        word = texts[i] or ""
        if word == "--":
            return i + 1, shell_c
        if word.startswith("--"):
            i += 2 if word in ("--rcfile", "--init-file") else 1
            continue
        if len(word) < 2 or word[0] not in "-+":
            break
        shell_c = shell_c or (word[0] == "-" and "c" in word[1:])
        i += 2 if ("o" in word[1:] or "O" in word[1:]) else 1
    return i, shell_c


def option_texts(argv: Sequence[ExpWord], texts: list[str]) -> list[str]:
    """``texts`` (a command's words, "" for one not known) with an option word known but for its attached
    value (``srun --nodelist="${NODES[$i]}" bash -c ...``: ``--nodelist=`` and a value not known) given
    back as that option, so a wrapper's options are still told from the command it runs (its value is not
    read). A word not known at all stays "": it may be an option or the command."""
    out = texts
    for i, word in enumerate(argv):
        holed = word.holed if word.text is None else None
        name, eq, _value = (holed or "").partition("=")
        if eq and name[:1] == "-" and len(name) > 1 and HOLE not in name and " " not in name:
            out = out if out is not texts else list(texts)
            out[i] = f"{name}={HOLE}"
    return out


def sbatch_job(
    evaluator: Any, argv: list[ExpWord], prefix_env: Mapping[str, tuple[Any, ...]], at: str
) -> tuple[list[ExpWord], Export | None] | None:
    """``sbatch [options] --wrap=STRING``: the ``sh -c STRING`` the job runs (sbatch(1): the string wrapped
    in a simple "sh" shell script), and sbatch's ``--export`` (default ALL: the submitting shell's exported
    variables reach the job). ``None`` for an sbatch that names a batch script, or whose string is unknown."""
    from argtrace.layers.slurm import sbatch_wrap, srun_export

    texts = [w.text for w in argv]
    # a string known but for some expansions (`--wrap="... --host $ip"`) is found by its known text
    found = sbatch_wrap([w.text if w.text is not None else w.holed for w in argv])
    if found is None:
        return None
    index, offset = found
    word = argv[index]
    if word.text is not None:
        wrapped = ExpWord(word.text[offset:], word.at, word.expansion, word.reason)
    elif word.holed is not None and HOLE not in word.holed[:offset]:
        wrapped = ExpWord(
            None, word.at, word.expansion, word.reason, holed=word.holed[offset:], holes=word.holes
        )
    else:
        return None
    if extra := _after_wrap(texts, index + 1):
        # sbatch(1): with --wrap "a script name and arguments may not be specified"; sbatch exits with
        # "Script arguments not permitted with --wrap option" (rwth-i6/sisyphus#182 quotes it)
        shown = wrapped.text if wrapped.text is not None else wrapped.expansion
        evaluator.emit("sbatch_wrap_args", at, wrap=shown, words=extra)
        return [], None
    export = srun_export(texts[:index], _exported(evaluator, prefix_env), program="sbatch")
    return [ExpWord("sh", at, "literal"), ExpWord("-c", at, "literal"), wrapped], export


def _exported(evaluator: Any, prefix_env: Mapping[str, tuple[Any, ...]]) -> dict[str, Any]:
    """The variables the submitting shell gives the job: what it exported and the command's prefix."""
    exported = {k: v[0] for k, v in evaluator.exported_env().items()}
    exported.update({k: v[0] for k, v in prefix_env.items()})
    return exported


def _after_wrap(texts: Sequence[str | None], start: int) -> list[str]:
    """The words after sbatch's ``--wrap`` value that are neither an option nor an option's value: sbatch
    reads them as a script's arguments."""
    from argtrace.frameworks.detect import SRUN_WITH_VALUE

    out: list[str] = []
    i = start
    while i < len(texts):
        word = texts[i] or ""
        if word.startswith("-") and not out:
            i += 2 if ("=" not in word and word in SRUN_WITH_VALUE) else 1
            continue
        out.append(word)
        i += 1
    return out
