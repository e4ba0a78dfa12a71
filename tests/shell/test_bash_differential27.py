"""A third probe against real bash (session 27): each script's server argv as argtrace states it must equal
bash's, word for word, and the words argtrace leaves unknown are the ones named here.

bash runs each script from a file with a ``python3`` function that prints its arguments
(``bash_oracle.bash_file_argv``). What the probe found: a script that sources a file it wrote from a
here-document (``cat > env.sh <<EOF ... EOF; source env.sh``) read the file from this machine's disk, or
nothing; ``read`` from a here-document was unknown (a here-string was read); ``printf`` with a width, a
number format or ``%q`` was unknown (``printf_format.py``, ``test_printf_format.py``); case patterns and
extglob groups (``test_pattern_views.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.shell.bash_oracle import analyzed, argtrace_argv, bash_file_argv

SERVER = "python3 -m sglang.launch_server --model-path m"

# (script, the words argtrace leaves unknown, by index in the server's argv after `python3`)
CASES = {
    "source_written_env_file": (
        "cat > {tmp}/env.sh <<EOF\nexport MODEL=Qwen/Qwen3-8B\nPORT=$((30000 + 1))\nEOF\n"
        'source {tmp}/env.sh\npython3 -m sglang.launch_server --model-path "$MODEL" --port "$PORT"',
        set(),
    ),
    "dot_relative_after_cd": (
        "cd {tmp}\ncat > run_env.sh <<'EOF'\nTP=4\nEOF\n. ./run_env.sh\n" + SERVER + ' --tp "$TP"',
        set(),
    ),
    "written_with_a_command_substitution": (
        "cat > {tmp}/env2.sh <<EOF\nTP=$(nproc)\nEOF\nsource {tmp}/env2.sh\n" + SERVER + ' --tp "$TP" --x 1',
        {5},
    ),
    "appended_env_file": (
        "cat > {tmp}/env3.sh <<EOF\nA=1\nEOF\ncat >> {tmp}/env3.sh <<EOF\nB=2\nEOF\n"
        "source {tmp}/env3.sh\n" + SERVER + ' --a "$A" --b "$B"',
        set(),
    ),
    "written_by_tee": (
        "tee {tmp}/env4.sh > /dev/null <<'EOF'\nexport DP=2\nEOF\nsource {tmp}/env4.sh\n"
        + SERVER
        + ' --dp "$DP"',
        set(),
    ),
    "printf_widths_and_numbers": (
        "printf -v PORT '%d' 0x7530\nprintf -v RUN 'run-%03d' 7\nN=$(printf '%.0f' 3.7)\n"
        + SERVER
        + ' --port "$PORT" --served-model-name "$RUN" --tp "$N"',
        set(),
    ),
    "read_from_a_here_document": (
        "read -r HOST PORT <<'EOF'\n10.0.0.1 30001 extra\nsecond line\nEOF\n"
        + SERVER
        + ' --host "$HOST" --port "$PORT"',
        set(),
    ),
    "read_from_an_expanded_here_document": (
        "P=9\nIFS=, read -r A B <<EOF\nx,$P\nEOF\n" + SERVER + ' --a "$A" --b "$B"',
        set(),
    ),
    "read_at_the_end_of_an_empty_here_document": (
        "read -r A <<'EOF' || A=fallback\nEOF\n" + SERVER + ' --a "$A"',
        set(),
    ),
    "mapfile_from_a_here_document": (
        "mapfile -t L <<'EOF'\none\ntwo\nEOF\n" + SERVER + ' --a "${{L[1]}}" --n "${{#L[@]}}"',
        set(),
    ),
    "non_ascii_text_read_from_here_strings_and_documents": (
        "read -r A <<< 'Qwen-é'\nread -r B <<'EOF'\nmodèle\nEOF\nwhile read -r c; do C=$c; done <<< 'ü'\n"
        "mapfile -t D <<'EOF'\nß\nEOF\n" + SERVER + ' --a "$A" --b "$B" --c "$C" --d "${{D[0]}}"',
        set(),
    ),
    "read_in_a_loop_over_a_here_document": (
        "while IFS='=' read -r k v; do\n  case $k in port) PORT=$v;; tp) TP=$v;; esac\ndone <<'X'\ntp=2\n"
        "port=5555\nX\n" + SERVER + ' --port "$PORT" --tp "$TP"',
        set(),
    ),
    "reads_in_a_group_over_a_here_document": (
        "{{ read -r A; read -r B; }} <<'X'\none\ntwo\nX\n" + SERVER + ' --a "$A" --b "$B"',
        set(),
    ),
    "a_last_line_without_its_newline": (
        'L=$(printf \'a\\nb\')\nwhile read -r l || [[ -n $l ]]; do S="$S[$l]"; done <<< "$L"\n'
        + SERVER
        + ' --s "$S"',
        set(),
    ),
    "a_program_in_the_loop_may_take_the_rest": (
        "while read -r h; do nvidia-smi -L; cat > /dev/null; N=$h; done <<'X'\nh1\nh2\nX\n"
        + SERVER
        + ' --n "$N"',
        {5},
    ),
    "array_quoted_for_a_remote_shell": (
        "ARGS=(--chat-template '{{% if x %}}a b{{% endif %}}' --x \"it's\")\n"
        'Q=$(printf \'%q \' "${{ARGS[@]}}")\neval "' + SERVER + ' $Q"',
        set(),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_argv_is_bash_s(name: str, tmp_path: Path) -> None:
    template, unknown = CASES[name]
    script = template.format(tmp=tmp_path)
    theirs = bash_file_argv(script, tmp_path)
    ours = argtrace_argv(script, tmp_path)
    assert len(ours) == len(theirs), (ours, theirs)
    assert {i for i, w in enumerate(ours) if w is None} == unknown
    assert [w for w in ours if w is not None] == [t for i, t in enumerate(theirs) if i not in unknown]


def test_a_written_file_wins_over_the_one_on_this_disk(tmp_path: Path) -> None:
    """The script overwrites the file before it sources it: this machine's copy is not what runs."""
    (tmp_path / "env.sh").write_text("TP=1\n")
    script = f"cat > {tmp_path}/env.sh <<'EOF'\nTP=8\nEOF\nsource {tmp_path}/env.sh\n{SERVER} --tp \"$TP\""
    assert argtrace_argv(script, tmp_path)[-1] == "8" == bash_file_argv(script, tmp_path)[-1]


def test_one_server_a_line_of_a_here_document(tmp_path: Path) -> None:
    """A launch script that serves several models: one background server per line the loop reads."""
    script = (
        "while read -r model port; do\n"
        '  python3 -m sglang.launch_server --model-path "$model" --port "$port" &\n'
        "done <<'EOF'\nQwen/A 30001\nQwen/B 30002\nEOF\nwait"
    )
    servers = analyzed(script, tmp_path).servers
    assert [[w.text for w in s.argv[3:]] for s in servers] == [
        ["--model-path", "Qwen/A", "--port", "30001"],
        ["--model-path", "Qwen/B", "--port", "30002"],
    ]


def test_a_read_in_an_unknown_branch_ends_what_is_known(tmp_path: Path) -> None:
    script = (
        'while read -r l; do if [ "$(hostname)" = gpu1 ]; then read -r skip; fi; L=$l\n'
        "done <<'X'\na\nb\nc\nX\n" + SERVER + ' --l "$L"'
    )
    (server,) = analyzed(script, tmp_path).servers
    word = server.argv[-1]
    assert word.text is None
    assert word.origin.reason == (
        "its value depends on the condition of `while read -r l` (launch.sh:1), which is not known "
        "statically (unknown or `a`)"
    )
