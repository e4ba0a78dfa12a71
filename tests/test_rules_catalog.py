"""Every rule's example, run through the real CLI, produces its code; its correct example does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.commands import COMMAND_MODULES
from argtrace.rules import LAYER_PREFIX, Example, Rule, all_rules
from argtrace.transport.options import command_index
from tests.conftest import REPO, run_cli
from tests.live.example_support import provide
from tests.needs import unmet

RULES = all_rules()


def run_example(example: Example, tmp_path: Path) -> list[str]:
    missing = unmet(example.needs)
    if missing:
        pytest.skip(f"needs {', '.join(missing)}")
    # Servers and processes an example needs run for its duration; {url}/{pid} in argv name them. Files
    # are written after they start (a script newer than the process is part of some examples).
    with provide(example.needs, tmp_path) as subst:
        for name, content in example.files.items():
            target = tmp_path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content)
        if "sshd-fixture" in example.needs:
            from tests.transport.sshd import expand_example_argv, start_sshd

            sshd = start_sshd(tmp_path / "sshd")
            try:
                result = run_cli(expand_example_argv(example.argv, sshd, tmp_path), cwd=tmp_path)
            finally:
                sshd.stop()
        else:
            argv = [word.format_map(subst) if "{" in word else word for word in example.argv]
            # --format json right after the command word: global options (--host) come before it.
            command = command_index(argv, COMMAND_MODULES)
            assert command is not None, argv
            argv = [*argv[: command + 1], "--format", "json", *argv[command + 1 :]]
            result = run_cli(argv, cwd=tmp_path)
    assert result.status in (0, 1), result.stderr
    return result.codes()


def test_catalog_is_not_empty_and_codes_match_their_layer() -> None:
    assert RULES
    for rule in RULES:
        assert rule.code.startswith(LAYER_PREFIX[rule.layer]), rule.code
        assert rule.code[2:].isdigit() and len(rule.code) == 5, rule.code
        assert rule.title and rule.rationale and rule.fix


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_example_triggers_the_rule(rule: Rule, tmp_path: Path) -> None:
    assert rule.code in run_example(rule.example, tmp_path)


@pytest.mark.parametrize("rule", [r for r in RULES if r.correct is not None], ids=lambda r: r.code)
def test_correct_example_does_not_trigger_the_rule(rule: Rule, tmp_path: Path) -> None:
    assert rule.correct is not None
    assert rule.code not in run_example(rule.correct, tmp_path)


def test_docs_rules_md_is_generated_from_the_catalog() -> None:
    from argtrace.rules.docs import catalog_markdown

    assert (REPO / "docs" / "rules.md").read_text() == catalog_markdown()
