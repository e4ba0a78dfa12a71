"""Every rule's example, run through the real CLI, produces its code; its correct example does not."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from argtrace.commands import COMMAND_MODULES
from argtrace.remote.options import command_index
from argtrace.rules import LAYER_PREFIX, Example, Rule, all_rules
from tests.conftest import REPO, run_cli
from tests.live.example_support import provide
from tests.needs import unmet

RULES = all_rules()


def _resolves(example: Example) -> bool:
    """A ``check`` that may run the framework's code in a resolver environment (it names a model config)."""
    return (
        tuple(example.argv[:1]) == ("check",)
        and "--model-config" in example.argv
        and "--no-resolve" not in example.argv
    )


def _example_dir(example: Example, tmp_path: Path, shared: Path) -> Path:
    """Where the example's files are written and the CLI runs. A resolving example runs in one directory per
    set of files, shared by the examples that write the same files: the launch's working directory is in the
    resolver's environment (``PWD``), and a resolver host serves only an equal environment
    (resolver/hosts.py), so a directory of its own per test started a host per resolution (9-10 s of import
    each). Same files, same directory: the examples' runs share the module's hosts (and the suite's
    resolution cache answers a request already resolved), as a user's checks in one directory would."""
    if not _resolves(example):
        return tmp_path
    files = example.written_files()
    digest = hashlib.sha256(repr(sorted((k, v) for k, v in files.items())).encode()).hexdigest()[:16]
    return shared / digest


@pytest.fixture(scope="module")
def shared_dirs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("resolving-examples")


def run_example(example: Example, tmp_path: Path, shared: Path | None = None) -> list[str]:
    missing = unmet(example.needs)
    if missing:
        pytest.skip(f"needs {', '.join(missing)}")
    where = tmp_path if shared is None else _example_dir(example, tmp_path, shared)
    where.mkdir(parents=True, exist_ok=True)
    # Servers and processes an example needs run for its duration; {url}/{pid} in argv name them. Files
    # are written after they start (a script newer than the process is part of some examples).
    with provide(example.needs, tmp_path) as subst:
        for name, content in example.written_files().items():
            target = where / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content)
        if "sshd-fixture" in example.needs:
            from tests.transport.sshd import expand_example_argv, start_sshd

            sshd = start_sshd(tmp_path / "sshd")
            try:
                result = run_cli(expand_example_argv(example.argv, sshd, tmp_path), cwd=where)
            finally:
                sshd.stop()
        else:
            argv = [word.format_map(subst) if "{" in word else word for word in example.argv]
            # --format json right after the command word: global options (--host) come before it.
            command = command_index(argv, COMMAND_MODULES)
            assert command is not None, argv
            argv = [*argv[: command + 1], "--format", "json", *argv[command + 1 :]]
            result = run_cli(argv, cwd=where)
    assert result.status in (0, 1), result.stderr
    return result.codes()


def test_catalog_is_not_empty_and_codes_match_their_layer() -> None:
    assert RULES
    for rule in RULES:
        assert rule.code.startswith(LAYER_PREFIX[rule.layer]), rule.code
        assert rule.code[2:].isdigit() and len(rule.code) == 5, rule.code
        assert rule.title and rule.rationale and rule.fix


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_example_triggers_the_rule(rule: Rule, tmp_path: Path, shared_dirs: Path) -> None:
    assert rule.code in run_example(rule.example, tmp_path, shared_dirs)


@pytest.mark.parametrize("rule", [r for r in RULES if r.correct is not None], ids=lambda r: r.code)
def test_correct_example_does_not_trigger_the_rule(rule: Rule, tmp_path: Path, shared_dirs: Path) -> None:
    assert rule.correct is not None
    assert rule.code not in run_example(rule.correct, tmp_path, shared_dirs)


def test_rule_pages_are_generated_from_the_catalog() -> None:
    from argtrace.rules.docs import catalog_pages

    pages = catalog_pages()
    on_disk = {p.name: p.read_text() for p in (REPO / "docs" / "rules").glob("*.md")}
    assert on_disk == pages
    assert set(pages) == {f"{r.code}.md" for r in RULES} | {"README.md"}


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_page_is_short_text_with_every_part(rule: Rule) -> None:
    from argtrace.rules.docs import rule_markdown

    page = rule_markdown(rule)
    # A page holds text only: no NUL, CR, ESC or other control byte (SH013's example is an ELF header).
    assert not [c for c in page if (ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F]
    assert len(page) < 8_000, len(page)
    assert page.startswith(f"# {rule.code}: {rule.title}\n")
    for part in ("## Why it matters", "## Problematic example", "## Fix"):
        assert part in page
    assert ("## Correct example" in page) == (rule.correct is not None)


def test_binary_example_is_shown_escaped() -> None:
    from argtrace.rules.docs import rule_markdown

    page = rule_markdown(next(r for r in RULES if r.code == "SH013"))
    assert "\\x7fELF\\x02\\x01\\x01\\x00\\x00\\x00" in page


def test_large_example_is_generated_for_the_test_and_summarised_on_its_page() -> None:
    from argtrace.rules.docs import rule_markdown

    sh015 = next(r for r in RULES if r.code == "SH015")
    assert sh015.example.files == {}
    script = sh015.example.written_files()["launch.sh"]
    assert isinstance(script, str) and len(script) > 256 * 1024
    page = rule_markdown(sh015)
    assert "a 280 KB script, 140,000 lines of `:` before the server command" in page
    assert ":\n:\n" not in page


def test_generated_example_needs_a_summary() -> None:
    with pytest.raises(ValueError, match="needs a summary"):
        Example(argv=("check", "x.sh"), generate=lambda: {"x.sh": ""})


def test_index_groups_codes_by_layer_in_launch_order() -> None:
    from argtrace.rules.docs import index_markdown

    index = index_markdown(RULES)
    headings = [line for line in index.splitlines() if line.startswith("## ")]
    layers = [layer for layer in LAYER_PREFIX if any(r.layer == layer for r in RULES)]
    assert headings == [f"## {LAYER_PREFIX[layer]}: {layer}" for layer in layers]
    assert "| [SH004](SH004.md) | error |" in index


def test_rules_code_prints_its_page() -> None:
    from argtrace.rules.docs import rule_markdown

    result = run_cli(["rules", "sh004"])
    assert result.status == 0
    assert result.stdout == rule_markdown(next(r for r in RULES if r.code == "SH004")) + "\n"


def test_a_literal_brace_the_test_writes_doubled_is_shown_once_on_the_page() -> None:
    from argtrace.rules.docs import rule_markdown

    rule = next(r for r in RULES if r.code == "PA062")
    assert any("{{" in word for word in rule.example.argv)  # the test fills placeholders with format_map
    page = rule_markdown(rule)
    assert "{{" not in page and "}}" not in page
    assert '{"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"}' in page
