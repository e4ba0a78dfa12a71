"""Session 28's probe of the newer readers (docs/reliability.md "Session 28 (safe28)"). The first and last
failed on the code before by their exact outcome; the second pins the values of a fix whose defect was time
(never measured here). The pattern matcher's own tests are in tests/shell/test_glob_match.py."""

from __future__ import annotations

import ast
from pathlib import Path

from argtrace.layers.transport.python_values import Unknown, Values
from argtrace.redact import Redactor
from argtrace.secret_detection import mask
from tests.shell.bash_oracle import analyzed


def test_a_dict_key_python_refuses_is_unknown_not_a_crash() -> None:
    # before: `internal error: TypeError: unhashable type: 'list'` for the whole check
    values = Values(ast.parse('ENV = {}\nENV[[1]] = "x"\nO = {[1]: "x", "A": 1}\nP = {**{(1, [2]): 3}}\n'))
    assert values.name("ENV", 9) == Unknown("ENV", "`ENV` is changed in a way argtrace does not follow", 9)
    assert values.name("O", 9) == Unknown(
        "{[1]: 'x', 'A': 1}", "`{[1]: 'x', 'A': 1}` is known only when the program runs", 3
    )
    assert isinstance(values.name("P", 9), Unknown)


def test_a_list_built_by_many_additions_is_exact_and_its_first_value_untouched() -> None:
    # before: each `cmd += [...]` copied the list (20,000 of them: 8 s)
    source = 'BASE = ["vllm", "serve"]\ncmd = BASE\n' + 'cmd += ["--x", "1"]\n' * 20000 + 'cmd.append("m")\n'
    values = Values(ast.parse(source))
    assert values.name("cmd", 30000) == ["vllm", "serve", *(["--x", "1"] * 20000), "m"]
    assert values.name("cmd", 30000)[-3:] == ["--x", "1", "m"]
    assert values.name("BASE", 30000) == ["vllm", "serve"]
    assert values.name("cmd", 4) == ["vllm", "serve", "--x", "1"]


def test_a_printf_width_past_one_word_leaves_the_value_unknown_and_the_server_found(tmp_path: Path) -> None:
    # before: MemoryError stopped the evaluation (SH024) and no server was found (SH019)
    script = "X=$(printf '%99999999999s' a)\nprintf -v Y '%*d' 999999999 1\n"
    script += 'python3 -m sglang.launch_server --served-model-name "$X" --port 1$Y'
    (server,) = analyzed(script, tmp_path).servers
    assert [w.text for w in server.argv[-4:]] == ["--served-model-name", None, "--port", None]


def test_a_secret_named_in_the_script_is_masked_where_a_syntax_error_quotes_it(tmp_path: Path) -> None:
    # before: bash cannot parse the script, so it was not evaluated and HF_TOKEN's value was not known; the
    # SH001 evidence quoting line 4 showed it (fuzz case script-mut-2831-2, the mutator's copy of the value)
    source = '#!/bin/bash\nexport HF_TOKEN=pwQMhxhe6frK0s\necho ok\nX="pwQMhxhe6frK0s\n'
    redactor = Redactor()
    redactor.learn_source(source)
    assert redactor.text('X="pwQMhxhe6frK0s') == f'X="{mask("pwQMhxhe6frK0s")}'
    wrapped = Redactor()
    wrapped.learn_source("vllm serve m --api-key pwFIRSTpart\\\npwSECONDpart --tp 2\n")
    assert "pwFIRSTpartpwSECONDpart" in wrapped.known
