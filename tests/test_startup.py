"""Start-up: a command imports and builds only what it needs (issue 18). Asserted on what is imported and
built, never on time (bench/check_startup.py measures the time)."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from argtrace.cli import _load_commands, _subparser, build_parser
from tests.conftest import run_cli

SRC = str(Path(__file__).resolve().parent.parent / "src")


def _modules_after(words: list[str]) -> tuple[str, set[str]]:
    """Run the console script's own import line and ``main(words)`` in a fresh interpreter; (stdout, the
    argtrace/argparse modules it imported). A module the interpreter had before argtrace was imported (an
    editable install's path finder imports ``typing`` at start-up) is not argtrace's doing."""
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "from argtrace.cli import main\n"
        f"status = main({words!r})\n"
        "names = sorted(m for m in set(sys.modules) - before\n"
        "               if m.startswith('argtrace') or m in ('argparse', 'typing'))\n"
        "print('MODULES', ' '.join(names))\n"
        "sys.exit(status)\n"
    )
    env = dict(os.environ, PYTHONPATH=SRC)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    out, _, modules = done.stdout.rpartition("MODULES ")
    return out, set(modules.split())


def test_version_builds_no_parser_and_imports_no_command() -> None:
    out, modules = _modules_after(["--version"])
    assert out == "argtrace 0.1.0\n"
    assert modules == {"argtrace", "argtrace.cli", "argtrace.commands"}


LAUNCHER = Path(__file__).resolve().parent.parent / "bin" / "argtrace"


def test_the_argtrace_command_is_a_launcher_that_imports_no_re() -> None:
    # pip's wrapper for a [project.scripts] entry point runs `import re` before argtrace: more than
    # `argtrace --version` itself costs. The command is a script file instead; installers rewrite `#!python`.
    import ast

    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    project = tomllib.loads((LAUNCHER.parent.parent / "pyproject.toml").read_text())
    assert "scripts" not in project["project"]  # one `argtrace` in bin/, not two
    assert project["tool"]["setuptools"]["script-files"] == ["bin/argtrace"]
    text = LAUNCHER.read_text()
    assert text.startswith("#!python\n")
    imports = [
        (n.module if isinstance(n, ast.ImportFrom) else n.names[0].name)
        for n in ast.walk(ast.parse(text))
        if isinstance(n, ast.Import | ast.ImportFrom)
    ]
    # the warm client first (argtrace/warm/client.py: os, sys, marshal), then the command in place
    assert imports == ["sys", "argtrace.warm", "argtrace.cli"]
    # run as the installed script is (-S: no site-packages .pth hook imports re before it)
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('re, _socket imported:', {'re', '_socket'} & set(sys.modules)))\n"
        f"sys.argv = [{str(LAUNCHER)!r}, '--version']\n"
        f"exec(compile(open({str(LAUNCHER)!r}).read(), {str(LAUNCHER)!r}, 'exec'))\n"
    )
    env = dict(os.environ, PYTHONPATH=SRC)
    done = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, env=env)
    assert (done.returncode, done.stdout) == (0, "argtrace 0.1.0\nre, _socket imported: set()\n")
    done = subprocess.run(
        [sys.executable, str(LAUNCHER), "check", "--help"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0 and done.stdout.startswith("usage: argtrace check ")


def test_top_level_help_imports_no_report_model() -> None:
    out, modules = _modules_after(["--help"])
    assert out.startswith("usage: argtrace [-h] [--version]")
    assert "    check               " in out and "    resolver            " in out
    assert "argtrace.model" not in modules and "argtrace.check" not in modules


def test_only_the_named_commands_subparser_gets_its_options() -> None:
    commands = _load_commands()
    parser = build_parser(commands, only="check")
    check = _subparser(parser, "check")
    log = _subparser(parser, "log")
    assert "--no-cache" in check._option_string_actions and "--gpu" in check._option_string_actions
    # the others are a name and a help line: -h and the common options only (--format, --show-secrets and
    # the CI controls of ci/controls.py)
    assert sorted(log._option_string_actions) == [
        "--baseline",
        "--fail-on",
        "--format",
        "--help",
        "--show-config",
        "--show-secrets",
        "--show-suppressed",
        "--verbose",
        "--write-baseline",
        "-h",
    ]
    full = _subparser(build_parser(commands), "log")  # without ``only``: every command's options
    assert "--launch" in full._option_string_actions and "--expect" in full._option_string_actions


def test_a_command_word_builds_that_commands_subparser_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each other subparser would cost an ArgumentParser (and argparse's gettext look-ups) for no output;
    # with anything but --host/--ssh-option before the word (-h: the top-level help) all of them are built.
    import argtrace.cli as cli

    built: list[list[str]] = []
    real = cli.build_parser

    def recording(commands: dict[str, Any], only: str | None = None) -> Any:
        built.append(sorted(commands))
        return real(commands, only)

    monkeypatch.setattr(cli, "build_parser", recording)
    commands = _load_commands()
    args = cli._parse(["--host", "node1", "check", "--format", "json", "x.sh", "--port", "1"], commands)
    assert (args.command, args.host, args.script, args.script_args) == (
        "check",
        "node1",
        "x.sh",
        ["--port", "1"],
    )
    assert built == [["check"]]
    built.clear()
    with pytest.raises(SystemExit):
        cli._parse(["-h", "check"], commands)
    assert built == [sorted(commands)]


def test_version_after_a_global_option_and_usage_errors_are_argparses() -> None:
    result = run_cli(["--host", "node1", "--version"])
    assert (result.status, result.stdout) == (0, "argtrace 0.1.0\n")
    result = run_cli(["nosuch"])
    assert result.status == 2
    assert "argtrace: error: argument COMMAND: invalid choice: 'nosuch'" in result.stderr
    result = run_cli(["log", "--no-such-option", "x.log"])
    assert result.status == 2 and "unrecognized arguments: --no-such-option" in result.stderr


def _check_example_in_a_fresh_interpreter() -> tuple[list[str], list[str], set[str]]:
    """``check --format json`` on the shipped example in a fresh interpreter (the console script's import
    line): (the bundled schemas it loaded, as ``framework version``, the frameworks whose release index file
    it read, every module it imported)."""
    example = str(Path(__file__).resolve().parent.parent / "examples" / "launch_mtp.sh")
    code = (
        "import contextlib, io, sys\n"
        "from argtrace.cli import main\n"
        "import argtrace.frameworks.schema as schema\n"
        "loaded = []\n"
        "real = schema.load_schema\n"
        "def recording(framework, version):\n"
        "    loaded.append(f'{framework} {version}')\n"
        "    return real(framework, version)\n"
        "schema.load_schema = recording\n"
        "import argtrace.frameworks.release_index as index\n"
        "indexed = []\n"
        "real_raw = index._raw\n"
        "def reading(framework):\n"
        "    indexed.append(framework)\n"
        "    return real_raw(framework)\n"
        "index._raw = reading\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['check', '--format', 'json', '--no-shellcheck', {example!r}])\n"
        "print('LOADED', ','.join(dict.fromkeys(loaded)))\n"
        "print('INDEXED', ','.join(indexed))\n"
        "print('MODULES', ' '.join(sorted(sys.modules)))\n"
    )
    # the files a check reads to build what it needs (a kept copy, resolver/data_cache.py, reads none)
    env = dict(os.environ, PYTHONPATH=SRC, ARGTRACE_NO_DATA_CACHE="1")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)
    return lines["LOADED"].split(","), lines["INDEXED"].split(","), set(lines["MODULES"].split())


def test_check_json_on_a_shell_script_reads_one_schema_and_imports_no_yaml_or_rich() -> None:
    # Which flags take no value, which releases know a flag, which register it alike: the release index
    # answers; only the analysed release's schema is read (every SGLang schema was 1.2 MB of JSON).
    loaded, indexed, modules = _check_example_in_a_fresh_interpreter()
    # 0.5.19 is analysed. 0.5.20 was read too while the multi-node pass decided the release a second
    # time without the flags the comment line cut off (and so picked 0.5.20); it now reuses the chosen
    # server's decision and parse, and the report is byte-identical.
    assert loaded == ["sglang 0.5.19"]
    # and only SGLang's release index (one file per framework; vLLM's was two fifths of the JSON read)
    assert indexed == ["sglang"]
    assert not {"yaml", "rich"} & modules


# What ``check --format json`` on a plain launch script must not import (issue 18, bench/check_startup.py):
# other commands' layers and renderers, the carriers of docker/compose/Kubernetes/ssh launches, and the
# third-party or C-backed modules only those need.
NOT_FOR_A_PLAIN_SCRIPT = (
    "argtrace.layers.log",
    "argtrace.layers.memory",
    "argtrace.layers.fleet",
    "argtrace.layers.live",
    "argtrace.layers.observed",
    "argtrace.layers.transport.containers",
    "argtrace.layers.transport.docker_cli",
    "argtrace.layers.transport.docker_env",
    "argtrace.layers.transport.envfiles",
    "argtrace.layers.transport.compose",
    "argtrace.layers.transport.kubernetes",
    "argtrace.layers.transport.pods",
    "argtrace.layers.transport.serving",
    "argtrace.layers.transport.yamlnodes",
    "argtrace.layers.transport.ssh",
    "argtrace.layers.transport.sshcall",
    "argtrace.layers.transport.uploads",
    "argtrace.layers.transport.sessions",
    "argtrace.layers.transport.render",
    "argtrace.render.text",
    "argtrace.render.sarif",
    "argtrace.render.junit",
    "argtrace.render.matrix",
    # (argtrace.resolver.cache and hashlib are imported: the store keeps shellcheck's opinions, whose
    # repeated runs cost more than the import; layers/shell/shellcheck.py)
    "argtrace.resolver.startup_steps",
    "argtrace.mcp_server",
    "argtrace.probe",
    "argtrace.static_help_text",
    # the other commands' modules (``check`` borrows ``live``'s connection options)
    *(f"argtrace.commands.{name}" for name in ("fix", "log", "mem", "why", "resolver", "ps", "run", "rules")),
    *(f"argtrace.commands.{name}" for name in ("mcp", "lint", "fleet")),
    # the ssh transport, the host's non-file results and the suppression comments' parser: a local script
    # with no `# argtrace disable` comment needs none of them; the data files are read as paths
    "argtrace.remote.ssh",
    "argtrace.remote.results",
    "argtrace.remote.logseam",
    "argtrace.ci.suppress",
    "argtrace.ci.baseline",  # no --baseline, no --write-baseline
    # what only an unknown word needs (the other framework's names, plugins' flags), and the message
    # index's store (huggingface_hub's repo-id rule: only for a model value that is no path)
    "argtrace.frameworks.feature_pairs",
    "argtrace.frameworks.plugins",
    "argtrace.resolver.message_store",
    "socket",
    # importlib.resources and its readers (zipfile, tempfile, random): the data files are read as paths
    # (package_data.py) and the Bash grammar is loaded without tree_sitter_bash's __init__, which imports them
    "importlib.resources",
    "importlib.readers",
    "zipfile",
    "tempfile",  # only a resolution run needs one (layers/resolution.run_recorder)
    # dataclasses' `inspect` (with dis and tokenize) until a dataclass without a docstring asks for it
    # (dataclass_code._InspectOnFirstUse)
    "inspect",
    "dis",
    "tokenize",
    # ast (17 M instructions): only a parsed raise-site test, a recorded repr or a TP013/PA001 pair needs it
    "ast",
    "random",
    # the user cache's path (user-generated schemas live there) is answered without it on Linux with an
    # absolute HOME and no XDG_CACHE_HOME (resolver/environments.user_cache_dir; the check runs so)
    *(("platformdirs",) if sys.platform == "linux" else ()),
    # difflib: only a value not among the choices, an unknown flag or variable asks for the nearest name
    "difflib",
    # the transport rules' catalog: only a carrier's finding, a remote node's interpreter or a network
    # interface variable's finding needs it (layers/socket_ifname.py, transport/interpreters.py)
    "argtrace.rules.transport",
    # the vLLM-only late layers: an SGLang launch's check does not run them (check.late_layers)
    "argtrace.layers.moe_all2all",
    "argtrace.layers.mamba_cache",
    "argtrace.layers.spec_draft_tp",
    # base64 (with struct and binascii): only bytes sent over a node's connection are encoded; a local
    # check calls the collector in-process (remote/collector.py)
    "base64",
    "yaml",
    "rich",
    # a script without #SBATCH, one start that is not multi-node and that no carrier places: the SLURM and
    # multi-node layers have nothing to judge (layers/nodescope.py), and no image names a Dynamo release
    "argtrace.layers.slurm",
    "argtrace.layers.multinode",
    "argtrace.layers.multinode_dp",
    "argtrace.layers.nodestart",
    "argtrace.layers.nodeplaces",
    "argtrace.rules.multinode",
    "argtrace.frameworks.dynamo",
    # urllib.parse (with ipaddress): pathlib's only use is Path.as_uri (deferred_stdlib.import_pathlib), and
    # only a GLOO_SOCKET_IFNAME part is read as an address (layers/socket_ifname.py)
    "urllib.parse",
    "ipaddress",
    # the example launches SGLang: vLLM's adapter is imported only for a vLLM launch or a converter only it
    # has (layers/parser/values.py, cold26)
    "argtrace.frameworks.vllm",
    # rule modules none of whose rules fire here: imported where a finding is made (cold26)
    "argtrace.rules.wrappers",
    "argtrace.rules.start_values",
    # modules a check of the example never calls into, imported where first needed (cold29): the
    # vanished-word findings, renamed variables, a container's GPUs, words of spaced flags, and the shell's
    # text utilities, `case` patterns, holes, emulated outputs (with printf), sourced env lines and a
    # child shell's environment (the raise-site index: tests/test_startup29.py, once the data cache is warm)
    "argtrace.frameworks.vanished",
    "argtrace.layers.renamed_env",
    "argtrace.layers.container_gpus",
    "argtrace.layers.parser.spaced_words",
    "argtrace.layers.shell.textfilters",
    "argtrace.layers.shell.pattern_views",
    "argtrace.layers.shell.holes",
    "argtrace.layers.shell.outputs",
    "argtrace.layers.shell.printf_format",
    "argtrace.layers.shell.envlines",
    "argtrace.layers.shell.childenv",
    # a Makefile's and a Markdown page's readers (the names are tested in layers/shell/file_kinds.py) and
    # sglang-router's launcher (rank_placement.py tests the entry point's name first)
    "argtrace.layers.shell.makefile",
    "argtrace.layers.shell.markdown",
    "argtrace.frameworks.sglang_router",
    # late layers that return at once without what check.late_layers tests before importing them: a
    # HiCache size, a docker run's unset /dev/shm, SGLang's NGRAM speculative algorithm (start30)
    "argtrace.layers.hicache_host",
    "argtrace.layers.container_shm",
    "argtrace.layers.ngram_trie",
)


def _imported_by_check(words: list[str], data_cache: Path | None = None) -> set[str]:
    """Every module ``main(['check', '--format', 'json', *words])`` imported in a fresh interpreter (the
    console script's import line; shellcheck runs as a user's check runs it), with ``data_cache`` as its
    ``ARGTRACE_DATA_CACHE`` when given."""
    code = (
        "import contextlib, io, sys\n"
        "before = set(sys.modules)\n"
        "from argtrace.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['check', '--format', 'json', *{words!r}])\n"
        "print(' '.join(sorted(set(sys.modules) - before)))\n"
    )
    env = dict(os.environ, PYTHONPATH=SRC, HOME=os.environ.get("HOME", "/root"))
    for name in ("XDG_CACHE_HOME", "ANDROID_DATA", "ANDROID_ROOT"):  # see user_cache_dir
        env.pop(name, None)
    if data_cache is not None:
        env["ARGTRACE_DATA_CACHE"] = str(data_cache)
    # -S, then the site-packages directories on the path: a .pth file's code (this machine's certifi hook
    # imports zipfile and importlib.resources) would otherwise import modules before `before` is taken
    code = "import site, sys; sys.path.extend(site.getsitepackages())\n" + code
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, env=env, check=True
    )
    return set(done.stdout.split())


def test_check_json_on_a_plain_script_imports_none_of_the_heavy_modules() -> None:
    example = str(Path(__file__).resolve().parent.parent / "examples" / "launch_mtp.sh")
    modules = _imported_by_check([example, "0", "30000"])
    assert "argtrace.check" in modules and "argtrace.layers.transport" in modules  # it did run
    heavy = NOT_FOR_A_PLAIN_SCRIPT
    imported = sorted(m for m in modules if any(m == h or m.startswith(f"{h}.") for h in heavy))
    assert imported == []


def test_a_check_that_resolves_nothing_imports_no_resolver_environment_code(tmp_path: Path) -> None:
    # the user schemas' directory is cache_dirs.resolver_cache_dir, not resolver/environments.py's
    example = str(Path(__file__).resolve().parent.parent / "examples" / "launch_mtp.sh")
    # a data cache of its own: where another checkout's code shares one, each rewrites the copies the other
    # kept (a copy is keyed by the code that made it), and the second run below would compile again
    modules = _imported_by_check(["--no-resolve", example], tmp_path)
    assert "argtrace.check" in modules
    assert "argtrace.resolver.environments" not in modules
    # nor the resolution layer: the Hugging Face cache lookup the memory layer's config needs is its own
    # module (layers/hf_cache.py)
    assert "argtrace.layers.resolution" not in modules
    assert "argtrace.resolver.hosts" not in modules
    # nor the resolution rules: the start-up rules' helpers find nothing here (cold26; a resolving check
    # says RS004, the resolver is not installed)
    assert "argtrace.rules.resolution" not in modules
    # nor shutil (with bz2 and lzma; resolver/environments.py needs it): argparse's formatter width comes
    # from static_help.columns (help_format.py), bash and shellcheck are found by localfs.which
    assert not {"shutil", "bz2", "lzma"} & modules
    # nor _ast in the fix re-checks once the raise sites' tests are kept compiled (start_raises.compile_test;
    # a first run with an empty data cache compiles them)
    assert "_ast" not in _imported_by_check(["--no-resolve", example], tmp_path)


def test_an_absolute_xdg_cache_home_needs_no_platformdirs(monkeypatch: pytest.MonkeyPatch) -> None:
    # XDG_CACHE_HOME=/abs is joined with the name as every platformdirs release does (cache_dirs.py)
    if sys.platform != "linux":
        pytest.skip("the answer without platformdirs is Linux's")
    monkeypatch.setenv("XDG_CACHE_HOME", "/nonexistent/xdg")
    code = (
        "import site, sys; sys.path.extend(site.getsitepackages())\n"
        "from argtrace.cache_dirs import resolver_cache_dir, user_cache_dir\n"
        "print(user_cache_dir(), resolver_cache_dir(), 'platformdirs' in sys.modules)\n"
    )
    env = dict(os.environ, PYTHONPATH=SRC)
    env.pop("ARGTRACE_CACHE_DIR", None)
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.split() == [
        "/nonexistent/xdg/argtrace",
        "/nonexistent/xdg/argtrace/resolvers",
        "False",
    ]


def test_a_compose_file_still_imports_what_it_needs() -> None:
    # The carriers are imported on first use, not dropped: a compose file reaches compose and YAML.
    compose = Path(__file__).resolve().parent / "data" / "false_alarms" / "compose"
    modules = _imported_by_check([str(sorted(compose.glob("*.yaml"))[0])])
    assert {"argtrace.layers.transport.compose", "argtrace.layers.transport.yamlnodes"} <= modules


@pytest.mark.parametrize(
    ("command", "imported"),
    [
        # a batch script's directives reach the SLURM layer, and its allocation the multi-node layer
        (
            "#!/bin/bash\n#SBATCH --nodes=2\npython3 -m sglang.launch_server --model-path /m",
            {"argtrace.layers.slurm", "argtrace.layers.multinode"},
        ),
        # an srun step in front of the server, srun's task variables, a multi-node start, vLLM DP over nodes
        ("srun -N 2 python3 -m sglang.launch_server --model-path /m", {"argtrace.layers.multinode"}),
        (
            "SLURM_STEP_NUM_TASKS=2 python3 -m sglang.launch_server --model-path /m",
            {"argtrace.layers.multinode"},
        ),
        ("python3 -m sglang.launch_server --model-path /m --nnodes 2", {"argtrace.layers.multinode"}),
        (
            "vllm serve /m --data-parallel-start-rank 2",
            {"argtrace.layers.multinode", "argtrace.frameworks.vllm"},
        ),
        # two starts, and an image tag (Dynamo's runtime images name the engine release)
        (
            "python3 -m sglang.launch_server --model-path /m &\n"
            "python3 -m sglang.launch_server --model-path /n",
            {"argtrace.layers.multinode"},
        ),
        (
            "docker run --gpus all lmsysorg/sglang:v0.5.4 python3 -m sglang.launch_server --model-path /m",
            {"argtrace.frameworks.dynamo"},
        ),
    ],
)
def test_what_a_plain_script_skips_is_imported_where_the_input_needs_it(
    tmp_path: Path, command: str, imported: set[str]
) -> None:
    script = tmp_path / "launch.sh"
    script.write_text(command + "\n")
    modules = _imported_by_check(["--no-shellcheck", "--no-resolve", str(script)])
    assert imported <= modules


@pytest.mark.parametrize(
    "command",
    [
        "python3 -m sglang.launch_server --model-path /m --tp-size 2",
        "CUDA_VISIBLE_DEVICES=0,1 python3 -m sglang.launch_server --model-path /m --tp-size 2 --nnodes 1",
        "vllm serve /m --tensor-parallel-size 2 --data-parallel-size 2",
        "python3 -m sglang.launch_server --model-path /m --nnodes $N --node-rank 0",
    ],
)
def test_the_multinode_layer_skipped_for_one_plain_start_would_have_found_nothing(
    monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    # The proof of the shortcut in servers_together.multinode_findings_of, on starts it skips: the full layer
    # (forced by saying every start is multi-node to the shortcut alone) gives no finding, no matrix either.
    import argtrace.layers.nodescope as nodescope
    import argtrace.servers_together as together

    parsed: list[Any] = []
    real = together.multinode_findings_of

    def recording(found: Any, allocation: Any = None) -> Any:
        parsed.append(found)
        return real(found, allocation)

    monkeypatch.setattr(together, "multinode_findings_of", recording)
    result = run_cli(["check", "--format", "json", "--no-shellcheck", "--no-resolve", "-c", command])
    assert result.status in (0, 1) and parsed  # (a fix's verification checks the edited launch again)
    for found in parsed:
        ((_, server, schema, layer),) = found
        values, given, _ = together.node_values(schema, layer)
        assert not nodescope.is_carried(server)
        assert not nodescope.is_multinode(server.framework, values, given)
        assert real(found) == ([], None)
    # the layers that bind the name on import are imported first and patched too: imported for the first
    # time under the patch, they kept the lambda after it was undone, and every later check in the process
    # took each start for a multi-node one (vllm7196's PA030, llmflux141's PA047, pd8_vllm14952's screen)
    import argtrace.layers.idlenodes as idlenodes
    import argtrace.layers.multinode as multinode

    for module in (nodescope, multinode, idlenodes):
        monkeypatch.setattr(module, "is_multinode", lambda *args: True)
    assert [real(found) for found in parsed] == [([], None)] * len(parsed)


def test_the_carriers_names_are_still_exported_by_the_transport_package() -> None:
    import argtrace.layers.transport as transport
    from argtrace.layers.transport.docker_cli import parse_docker_run
    from argtrace.layers.transport.manifests import manifest_kind

    assert transport.parse_docker_run is parse_docker_run
    assert transport.manifest_kind is manifest_kind
    assert sorted(set(transport.__all__) - set(dir(transport)) - set(transport._LAZY)) == []
    for name in transport._LAZY:  # each lazy name is found in the module it names
        assert getattr(transport, name) is getattr(
            importlib.import_module(f"argtrace.layers.transport.{transport._LAZY[name]}"), name
        )
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        transport.no_such_name  # noqa: B018


# What ``log FILE --format json`` on a local file must not import (issue 18, bench/log_throughput.py): a
# launch's classes (server starts, assumptions, fix edits: model_launch.py), the ssh transport and the
# host's non-file results, the other commands and their layers, and ``subprocess``: the matcher path
# starts ``wc`` with ``os.posix_spawn``, and the local host's ``stat`` reaches the collector, which imports
# ``subprocess`` only where it runs a program. Nor (logspeed28) ``shutil`` with the ``bz2`` and ``lzma`` it
# imports (``wc`` is found by ``localfs.which``; prefilter.py, shipped with the reader, imports it where grep
# runs), ``threading`` (the stores' locks are ``_thread``'s) and ``gzip`` (a .gz is inflated by
# ``lines.Gunzip``; analyze.py imports it only to read a .gz log's head).
NOT_FOR_A_LOCAL_LOG = (
    "argtrace.model_launch",
    "argtrace.remote.ssh",
    "argtrace.remote.results",
    "argtrace.check",
    "argtrace.layers.transport",
    "argtrace.layers.shell",
    "argtrace.layers.parser",
    "argtrace.layers.memory",
    "argtrace.layers.live",
    "argtrace.layers.fleet",
    "argtrace.layers.log.text",  # the text format's renderer (json asked)
    "argtrace.layers.log.check",  # check --log
    "argtrace.resolver",
    "argtrace.render.text",
    "argtrace.ci.suppress",
    "argtrace.ci.baseline",
    *(
        f"argtrace.commands.{name}"
        for name in ("check", "fix", "mem", "why", "resolver", "ps", "run", "rules")
    ),
    *(f"argtrace.commands.{name}" for name in ("mcp", "lint", "fleet", "live")),
    "subprocess",
    "signal",
    "socket",
    "yaml",
    "rich",
    "shutil",
    "bz2",
    "lzma",
    "threading",
    "gzip",
    "datetime",  # its classes come from the C module _datetime (layers/log/dates.py)
    "html",  # html.unescape, for a log copied from a web page's source only (lines._decode)
    "shlex",  # a report's command-line fields and TP013 only (redact.py, causes.py): 1.5 M instructions
    # plain words are read without the parser (quick_argv.py): argparse comes only for a usage error or help
    "argparse",
    "gettext",
    "locale",
    "argtrace.help_format",
)


# The one resolver module a log's analysis uses: the data cache, for the error catalog's kept copy
# (layers/log/signatures.py); its package's __init__ imports nothing.
LOG_NEEDS = {"argtrace.resolver", "argtrace.resolver.data_cache"}


def _imported_by_log(log: Path) -> set[str]:
    code = (
        "import contextlib, io, sys\n"
        "before = set(sys.modules)\n"
        "from argtrace.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    status = main(['log', {str(log)!r}, '--format', 'json', '--launch', 'all'])\n"
        "print(status, ' '.join(sorted(set(sys.modules) - before)))\n"
    )
    # -S: no site hooks (a .pth file may import shutil or threading before argtrace starts, hiding them);
    # the site-packages directories (ahocorasick_rs) are on PYTHONPATH instead
    import site

    dirs = [*site.getsitepackages(), site.getusersitepackages()]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([SRC, *dirs]))
    for name in ("ARGTRACE_NO_MATCHER", "ARGTRACE_NO_GREP"):
        env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, env=env, check=True
    )
    status, _, modules = done.stdout.partition(" ")
    assert status in ("0", "1")
    return set(modules.split())


def test_log_on_a_local_file_imports_none_of_what_it_does_not_need(tmp_path: Path) -> None:
    from argtrace.layers.log.acscan import matcher
    from argtrace.layers.log.reader import GREP_MIN, MATCHER_MIN

    logs = Path(__file__).resolve().parent / "data" / "logs"
    small = logs / "vllm_0.20_qwen36_mtp.log"  # the Python scan (under reader.MATCHER_MIN)
    # the matcher's path with every window counted as it passes (no wc): 1 MB of access lines
    middle = tmp_path / "middle.log"
    # The matcher's path with its deferred line count (``wc`` over the quiet middle): a recorded start-up,
    # 24 MB of access lines, a recorded failure.
    big = tmp_path / "big.log"
    access = b'(APIServer pid=1) INFO:     172.18.0.1:40169 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n'
    with big.open("wb") as fh:
        fh.write(small.read_bytes())
        fh.write(access * ((24 << 20) // len(access)))
        fh.write((logs / "vllm_issue25837_free_memory.log").read_bytes())
    assert big.stat().st_size > GREP_MIN
    with middle.open("wb") as fh:
        fh.write(small.read_bytes())
        fh.write(access * ((1 << 20) // len(access)))
        fh.write((logs / "vllm_issue25837_free_memory.log").read_bytes())
    assert small.stat().st_size < MATCHER_MIN < middle.stat().st_size < GREP_MIN
    # an excerpt whose first line the scan does not keep: its launch begins at the first logged line before
    # the first kept one (analyze._first_logged_line reads the file's head; gzip only for a .gz)
    excerpt = tmp_path / "excerpt.log"
    excerpt.write_bytes(
        b"the lines before the error\n" + (logs / "vllm_issue25837_free_memory.log").read_bytes()
    )
    for log in (small, middle, big, excerpt):
        modules = _imported_by_log(log)
        assert "argtrace.layers.log.analyze" in modules  # it did run
        scanned_small = log in (small, excerpt)
        assert ("argtrace.layers.log.acscan" in modules) == (not scanned_small and matcher() is not None)
        imported = sorted(
            m
            for m in modules
            if any(m == h or m.startswith(f"{h}.") for h in NOT_FOR_A_LOCAL_LOG) and m not in LOG_NEEDS
        )
        assert imported == []
        assert LOG_NEEDS <= modules


def test_a_command_runs_with_a_young_generation_threshold_of_100000_and_main_restores_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gc

    import argtrace.cli as cli

    during: list[tuple[int, int, int]] = []
    real = cli._run_main

    def recording(words: list[str]) -> int:
        during.append(gc.get_threshold())
        return real(words)

    monkeypatch.setattr(cli, "_run_main", recording)
    before = gc.get_threshold()
    assert cli.main(["--host", "node1", "--version"]) == 0
    assert during == [(100_000, *before[1:])]
    assert gc.get_threshold() == before


def test_the_console_script_leaves_every_object_frozen_for_the_interpreters_shutdown() -> None:
    # main() without argv is the console script (and python -m argtrace): the process ends right after,
    # so the objects left are frozen (its shutdown's full collections skip them) and the threshold stays.
    code = (
        "import gc, sys\n"
        "from argtrace.cli import main\n"
        "sys.argv = ['argtrace', '--host', 'node1', '--version']\n"
        "status = main()\n"
        "print(status, gc.get_freeze_count() > 1000, gc.get_threshold()[0])\n"
    )
    env = dict(os.environ, PYTHONPATH=SRC)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.splitlines() == ["argtrace 0.1.0", "0 True 100000"]


def test_a_flag_a_newer_release_removed_still_reads_the_newer_schemas() -> None:
    # The index answers "every newer release knows it"; a flag one of them dropped loads them for the fix.
    result = run_cli(
        [
            "check",
            "--format",
            "json",
            "--no-shellcheck",
            "--framework-version",
            "0.5.10.post1",
            "-c",
            "python3 -m sglang.launch_server --model-path /m --cuda-graph-max-bs 8 --enable-torch-compile",
        ]
    )
    messages = [
        (f["code"], f["message"]) for f in json.loads(result.stdout)["findings"] if f["code"] == "PA024"
    ]
    assert messages == [
        (
            "PA024",
            "--cuda-graph-max-bs works in sglang 0.5.10.post1 but sglang 0.5.20 no longer accepts it "
            "(use --cuda-graph-max-bs-decode); the script breaks on upgrade",
        )
    ]


def test_the_release_is_decided_and_argparse_run_once_for_a_one_server_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # analyze_server decides the release and parses; the pass over every server start (other servers'
    # findings, multi-node comparison) reuses that for the chosen server instead of doing both again.
    import argtrace.check as check
    import argtrace.layers.parser as parser

    calls: list[str] = []
    real_decide, real_parse = check.decide_server_release, parser.parse_server_args

    def decide(*args: Any, **kwargs: Any) -> Any:
        calls.append("decide")
        return real_decide(*args, **kwargs)

    def parse(*args: Any, **kwargs: Any) -> Any:
        calls.append("parse")
        return real_parse(*args, **kwargs)

    monkeypatch.setattr(check, "decide_server_release", decide)
    monkeypatch.setattr(parser, "parse_server_args", parse)
    command = "python3 -m sglang.launch_server --model-path /m --tp-size 2"
    result = run_cli(["check", "--format", "json", "--no-shellcheck", "--no-resolve", "-c", command])
    assert result.status == 0
    assert calls == ["decide", "parse"]


def test_rule_and_example_init_take_the_dataclass_fields_with_their_defaults() -> None:
    # Rule and Example fill their frozen __dict__ in one update (cold26); the hand-written __init__ must
    # stay the dataclass's: the same fields in the same order, the same defaults, still frozen.
    import dataclasses
    import inspect

    from argtrace.rules import Example, Rule

    for cls in (Rule, Example):
        params = list(inspect.signature(cls.__init__).parameters.values())[1:]
        fields = dataclasses.fields(cls)
        assert [p.name for p in params] == [f.name for f in fields]
        for p, f in zip(params, fields, strict=True):
            if f.default is not dataclasses.MISSING:
                assert p.default == f.default, f.name
            elif f.default_factory is not dataclasses.MISSING:
                assert p.default is None, f.name  # None stands for a fresh default_factory() value
            else:
                assert p.default is inspect.Parameter.empty, f.name
    example = Example(("check", "x.sh"))
    assert example == Example(argv=("check", "x.sh"), files={}, needs=(), generate=None, summary=None)
    assert example.files == {} and example.files is not Example(("check", "x.sh")).files
    with pytest.raises(dataclasses.FrozenInstanceError):
        example.argv = ()  # type: ignore[misc]
    with pytest.raises(ValueError, match="a generated example has no literal files"):
        Example(("check", "x.sh"), files={"x.sh": ""}, generate=dict, summary="s")
    rule = Rule("SH999", "shell", "error", "t", "r", "f", example)
    assert dataclasses.replace(rule, basis="observed") == Rule(
        code="SH999",
        layer="shell",
        severity="error",
        title="t",
        rationale="r",
        fix="f",
        example=example,
        basis="observed",
    )


def test_an_entry_points_flag_positions_read_one_option_at_a_time_equal_the_index() -> None:
    # EntryPoint.flags expands an option string's runs when it is asked for (cold26), not all ~500 at
    # once: every option string of every entry point gives the positions its runs list.
    from argtrace.frameworks.entrypoints import _index, entrypoint

    for name, raw in _index()["entrypoints"].items():
        ep = entrypoint(name)
        assert ep is not None
        assert len(ep.flags) == len(raw["flags"]) and list(ep.flags) == list(raw["flags"])
        for flag, runs in raw["flags"].items():
            assert ep.flags[flag] == tuple(p for first, n in runs for p in range(first, first + n))
        assert ep.flags.get("--no-such-flag-anywhere") is None
        assert "--no-such-flag-anywhere" not in ep.flags


def test_all_defaults_are_kept_per_schema_and_every_call_gets_its_own_dict() -> None:
    # kept in the schema instance (cold26): the same defaults as reading every option again, a new dict
    # each call (callers add to it), and another schema of the release keeps its own.
    from dataclasses import replace

    from argtrace.frameworks.schema import load_schema
    from argtrace.layers.parser import _all_defaults, all_defaults

    schema = load_schema("sglang", "0.5.19")
    first = all_defaults(schema)
    first["port"] = -1
    second = all_defaults(schema)
    assert second == _all_defaults(schema) and second["port"] == 30000 and second is not first
    other = replace(schema, variant="test")
    assert "_all_defaults" not in other.__dict__ and all_defaults(other) == second
    # the multi-node layer's defaults by configuration field, kept the same way
    from argtrace.servers_together import _field_defaults

    by_field = _field_defaults(schema)
    by_field["tp_size"] = -1
    assert _field_defaults(schema) == {schema.field_for_dest(d): v for d, v in second.items()}


def test_a_schemas_required_specs_are_its_required_options_and_positionals_in_order() -> None:
    # every parse reads the kept tuple (cold26) instead of scanning the ~500 specs for `required`
    from argtrace.frameworks.schema import load_schema

    for framework, version in (("sglang", "0.5.19"), ("vllm", "0.11.0")):
        schema = load_schema(framework, version)
        every = (*schema.options, *schema.positionals)
        assert schema.required_specs == tuple(s for s in every if s.required)


def test_a_rules_module_on_first_use_is_the_module_once_a_rule_is_read() -> None:
    import importlib

    from argtrace.rules import OnFirstUse

    lazy = OnFirstUse("argtrace.rules.resolution")
    real = importlib.import_module("argtrace.rules.resolution")
    assert lazy.RS001 is real.RS001 and lazy.__name__ == "argtrace.rules.resolution"
    with pytest.raises(AttributeError):
        _ = lazy.NO_SUCH_RULE


def test_every_dataclass_has_a_docstring() -> None:
    """dataclasses makes a docstring from ``inspect.signature`` for a class without one, importing inspect
    (with ast, dis, tokenize: 36 M instructions, 6% of a short check; session 28's glob_match.py did)."""
    import ast

    import argtrace

    src = Path(argtrace.__file__).parent
    missing = []
    for path in sorted(src.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and ast.get_docstring(node) is None:
                for deco in node.decorator_list:
                    target = deco.func if isinstance(deco, ast.Call) else deco
                    if (
                        getattr(target, "id", None) == "dataclass"
                        or getattr(target, "attr", None) == "dataclass"
                    ):
                        missing.append(f"{path.relative_to(src)}:{node.lineno} {node.name}")
    assert missing == []
