"""Defects found by the safety probe of session 15 (docs/reliability.md "Campaign 15", docs/redaction.md).
Each test failed on the code before: by its exact outcome, or by its subprocess's timeout (a hang).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from argtrace.commands.why_context import _LOGGED_AT, _NAMING, without_printed
from argtrace.redact import Redactor, mask, redact_text
from tests.conftest import REPO

ENV = {**os.environ, "PYTHONPATH": str(REPO / "src"), "NO_COLOR": "1", "ARGTRACE_NO_CACHE": "1"}


def argtrace(
    args: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "argtrace", *args],
        cwd=cwd,
        env=env or ENV,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


# --- never hang: FIFOs and endless devices named as files ------------------------------------------------


@pytest.mark.parametrize(
    ("option", "name", "said"),
    [
        # before: --baseline FIFO waited for a writer forever; /dev/zero read until memory ran out
        ("--baseline", "fifo", "is a named pipe (FIFO), not a regular file"),
        ("--baseline", "/dev/zero", "is a character device, not a regular file"),
        # before: opening a FIFO for writing waited for a reader forever
        ("--write-baseline", "fifo", "is a named pipe (FIFO), not a regular file"),
    ],
)
def test_a_baseline_that_is_no_regular_file_is_refused(
    tmp_path: Path, option: str, name: str, said: str
) -> None:
    os.mkfifo(tmp_path / "fifo")
    done = argtrace(["check", "--no-resolve", option, name, "-c", "vllm serve m"], tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == f"argtrace check: {option} {name}: {said}\n"


def test_a_ray_serve_llm_config_file_that_is_a_device_is_not_read(tmp_path: Path) -> None:
    # before: Path.read_bytes() of /dev/zero filled memory; a FIFO hung the run
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "serve.yaml").write_text(
        "applications:\n- name: a\n  import_path: ray.serve.llm:build_openai_app\n"
        "  args:\n    llm_configs: [./fifo, /dev/zero]\n"
    )
    done = argtrace(["check", "--no-resolve", "--format", "gcc", "serve.yaml"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert [line.split(": ", 2)[2][:60] for line in done.stdout.splitlines()] == [
        "application a llm_configs[0] is the file ./fifo, which Ray r",
        "application a llm_configs[1] is the file /dev/zero, which Ra",
    ]


# --- never hang: pathological runs in a pasted text -------------------------------------------------------


def test_the_context_of_a_message_is_found_in_linear_time() -> None:
    # before: re.sub of the pieces joined by [^\n]*? backtracked over every start and split of the line
    assert without_printed("a 0 b\nx 1 y 2 z", ["x ", " y ", ""]) == "a 0 b\n  z"
    assert without_printed("0" * 200_000, ["0", "0", "0", "x"]) == "0" * 200_000
    assert without_printed("keep a=1 b=2 rest", ["a=", " b=", ""]) == "keep   rest"
    assert without_printed("no match\nhere", ["a=", " b="]) == "no match\nhere"


def test_naming_words_start_only_where_their_run_starts() -> None:
    # before: a run of 100,000 zeros was scanned from each of its positions (minutes)
    assert _NAMING.findall("0" * 100_000) == []
    assert _LOGGED_AT.sub(" ", "0" * 100_000 + " engine.py:366] x") == "0" * 100_000 + "   x"
    assert _NAMING.findall("use --tp-size or model_path a/b fooBar x") == [
        "--tp-size",
        "model_path",
        "a/b",
        "fooBar",
    ]


def test_a_pasted_run_of_zeros_is_explained_quickly(tmp_path: Path) -> None:
    # the fuzz case why-1515-6 (seed 1515): over 60 s, then over 3 minutes alone on a loaded machine
    text = (
        "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)\n"
        "(APIServer pid=113473) RuntimeError: Engine core initialization failed. See root cause above. "
        "Failed core proc(s): {}\n" + "0" * 60_000 + "\n"
    )
    done = argtrace(["why", "--all", "--format", "json", text], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert '"command": "why"' in done.stdout


# --- secrets: forms that were shown ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        # a token glued to a one-letter option
        ("curl -khf_GLUEDglued0GLUEDglued01 x", f"curl -k{mask('hf_GLUEDglued0GLUEDglued01')} x"),
        ("-tsk-abcdefghijklmnopqrstuvwxyz", f"-t{mask('sk-abcdefghijklmnopqrstuvwxyz')}"),
        ("mysql -pAKIAIOSFODNN7EXAMPLE", f"mysql -p{mask('AKIAIOSFODNN7EXAMPLE')}"),
        # not a token: a longer word before the dash, or two dashes
        ("x-hf_abcdefghijklmnopqrstuvwx", "x-hf_abcdefghijklmnopqrstuvwx"),
        ("--xhf_abcdefghijklmnopqrstuvwx", "--xhf_abcdefghijklmnopqrstuvwx"),
        # HTTP headers named secret
        ("X-Api-Key: abcdefghijklmnop123", f"X-Api-Key: {mask('abcdefghijklmnop123')}"),
        ('curl -H "api-key: azureKEY123456" x', f'curl -H "api-key: {mask("azureKEY123456")}" x'),
        ("Private-Token: glpat-abcdefghij", f"Private-Token: {mask('glpat-abcdefghij')}"),
        ("Proxy-Authorization: Basic dXNlcjpwYXNz", f"Proxy-Authorization: Basic {mask('dXNlcjpwYXNz')}"),
        # not secret, or prose
        ("Content-Type: application/json", "Content-Type: application/json"),
        ("max-model-len: 4096", "max-model-len: 4096"),
        ("X-Api-Key: is required", "X-Api-Key: is required"),
    ],
)
def test_glued_tokens_and_secret_headers_are_masked(text: str, shown: str) -> None:
    assert redact_text(text) == shown


def test_a_secret_over_continuation_lines_is_masked_piece_by_piece() -> None:
    source = "run --api-key SPLITapiKEYfirst\\\nSPLITapiKEYsecond --tp 2\n"
    redactor = Redactor(["SPLITapiKEYfirstSPLITapiKEYsecond"])
    redactor.learn_source(source)
    assert redactor.text("-SPLITapiKEYsecond --tp 2") == f"-{mask('SPLITapiKEYsecond')} --tp 2"
    assert redactor.text("SPLITapiKEYfirst\\") == f"{mask('SPLITapiKEYfirst')}\\"
    # a secret that the source does not wrap teaches no pieces (a source that names no secret itself: one
    # written under a secret's name, as `--api-key` above, is learned from the source since session 28)
    other = Redactor(["SPLITapiKEYsecond--tp"])
    other.learn_source(source.replace("--api-key", "--model-path"))
    assert other.text("SPLITapiKEYsecond") == "SPLITapiKEYsecond"


def test_each_line_of_a_multi_line_secret_is_masked() -> None:
    redactor = Redactor(["firstLINEofKEY\\\nsecondLINEofKEY"])
    assert redactor.text("x secondLINEofKEY y") == f"x {mask('secondLINEofKEY')} y"


def test_the_fix_diff_masks_the_tail_of_a_wrapped_secret(tmp_path: Path) -> None:
    # before: the diff's changed line showed `SPLITapiKEYsecond` (the second half of the --api-key value)
    (tmp_path / "split.sh").write_text(
        "#!/bin/bash\n"
        "python3 -m sglang.launch_server --model-path m --api-key SPLITapiKEYfirst\\\n"
        "SPLITapiKEYsecond --tp 2\n"
    )
    done = argtrace(["fix", "--no-resolve", "--unverified", "split.sh"], tmp_path)
    assert done.stdout == (
        "--- split.sh\n+++ split.sh\n@@ -1,3 +1,3 @@\n #!/bin/bash\n"
        f" python3 -m sglang.launch_server --model-path m --api-key {mask('SPLITapiKEYfirst')}\\\n"
        f"-{mask('SPLITapiKEYsecond')} --tp 2\n"
        f"+{mask('SPLITapiKEYsecond')} --tp-size 2\n"
    )
    assert "SPLITapi" not in done.stderr


# --- over-masking ------------------------------------------------------------------------------------------


def test_a_hop_label_is_not_learned_as_the_spelling_of_a_secret() -> None:
    # before: a Ray Serve config's hop label `ray serve llm` (the word's `expansion`) was learned as secret
    # and masked in "How the command travels"
    redactor = Redactor(["<YOUR-TOKEN-HERE>"])
    redactor.learn_data({"text": "<YOUR-TOKEN-HERE>", "expansion": "ray serve llm"})
    assert redactor.text("ray serve llm") == "ray serve llm"
    # a spelling with the secret's literal characters is still learned
    redactor.learn("hf_abAAAABBBB")
    redactor.learn_data({"text": "hf_abAAAABBBB", "expansion": "${KEY_PART}AAAABBBB"})
    assert redactor.text("${KEY_PART}AAAABBBB") == mask("${KEY_PART}AAAABBBB")


def test_a_ray_serve_config_shows_its_hop_label() -> None:
    path = REPO / "tests/data/real_cases_carriers4/ok_ray_docs_llama_3_1_8b.yaml"
    done = argtrace(["check", "--no-resolve", str(path)], REPO)
    travels = done.stdout.split("How the command travels\n", 1)[1].split("\n\n", 1)[0]
    # the hop's label after its line (the terminal's width decides where the section's lines wrap)
    assert " ".join(travels.split()).startswith(f"{path}:11 ray serve llm ")
    assert "<redacted:9f8c2d6f>" not in done.stdout


# --- cache files are private -------------------------------------------------------------------------------


def test_the_why_lookup_files_are_private(tmp_path: Path) -> None:
    # before: why-*.lookup were 0644 in a directory made 0755, written through a fixed temporary name
    cache = tmp_path / "cache"
    env = {**ENV, "ARGTRACE_DATA_CACHE": str(cache)}
    env.pop("ARGTRACE_NO_DATA_CACHE", None)
    done = argtrace(["why", "CUDA out of memory"], tmp_path, env)
    assert done.returncode == 0, done.stderr
    lookups = sorted(p for p in cache.iterdir() if p.name.endswith(".lookup"))
    assert lookups, "no lookup file written"
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert {oct(stat.S_IMODE(p.stat().st_mode)) for p in lookups} == {"0o600"}
    assert not [p for p in cache.iterdir() if p.name.endswith(".tmp")]


# --- never blow up memory: a huge value known secret -----------------------------------------------------


def test_a_huge_secret_is_masked_without_compiling_it() -> None:
    # before: the 10 MB value was compiled into the alternation (1.6 GB, 77 s for `check` of the compose file)
    from argtrace.redact import MAX_PATTERN_SECRET, KnownSecrets

    huge = "c" * (MAX_PATTERN_SECRET + 1)
    known = KnownSecrets([huge, "shortSECRET1", "cccccc"])
    assert known.huge == [huge]
    text = f"a {huge}c shortSECRET1 x{huge} cccccc"
    assert known.sub(text) == (f"a {mask(huge)}c {mask('shortSECRET1')} x{mask(huge)} {mask('cccccc')}")
    redactor = Redactor([huge])
    assert redactor.text(f"HF={huge}") == f"HF={mask(huge)}"


def test_lint_masks_shellchecks_line_with_the_tail_of_a_wrapped_secret(tmp_path: Path) -> None:
    # before: lint's merged report names no server of the file, so the value was unknown there and
    # shellcheck's SC2086 evidence showed `SCapiKEYsecondPart" --tp-size $1`
    (tmp_path / "sc.sh").write_text(
        "#!/bin/bash\n"
        'python3 -m sglang.launch_server --model-path m --api-key "SCapiKEYfirstPart\\\n'
        'SCapiKEYsecondPart" --tp-size $1\n'
    )
    done = argtrace(["lint", "--format", "json", "sc.sh"], tmp_path)
    assert "apiKEY" not in done.stdout + done.stderr
    evidence = [
        e["text"] for f in json.loads(done.stdout)["findings"] if f["code"] == "SC2086" for e in f["evidence"]
    ]
    assert evidence == [f'{mask("SCapiKEYsecondPart")}" --tp-size $1']
