"""``kubectl exec POD -- COMMAND`` (and ``oc exec``): the command runs in the pod's container and its server
is read (was SH040, "argtrace does not follow `kubectl exec`", a warning, and nothing of the server checked).
Our own inputs, in the form of the commands in vLLM's and SGLang's Kubernetes guides."""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.layers.transport.kube_exec import KubeExec, parse_kube_exec
from tests.conftest import run_cli

SERVER = ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--port", "30000"]


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["kubectl", "exec", "p", "--", *SERVER], KubeExec("p", None, None, tuple(SERVER), 4)),
        (
            ["kubectl", "-n", "llm", "exec", "-it", "deploy/sgl", "-c", "main", "--", *SERVER],
            KubeExec("deploy/sgl", "main", "llm", tuple(SERVER), 9),
        ),
        (
            ["oc", "exec", "--namespace=llm", "-cmain", "p", "--container", "x", "--", "vllm", "serve"],
            KubeExec("p", "x", "llm", ("vllm", "serve"), 8),
        ),
        # the old form without `--` is refused by current kubectl: not read
        (["kubectl", "exec", "p", *SERVER], None),
        (["kubectl", "logs", "p", "--", "x"], None),
        # the pod is not known here, the command after the script's own `--` is
        (["kubectl", "exec", None, "--", *SERVER], KubeExec(None, None, None, tuple(SERVER), 4)),
        (["kubectl", "exec", "-n", None, "p", "--", *SERVER], KubeExec("p", None, None, tuple(SERVER), 6)),
    ],
)
def test_parse(words: list[str | None], expected: KubeExec | None) -> None:
    assert parse_kube_exec(words) == expected


def test_the_server_in_the_pod_is_read(tmp_path: Path) -> None:
    (tmp_path / "launch.sh").write_text(
        "#!/bin/bash\nkubectl -n llm exec -it deploy/sglang -c server -- "
        "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size 2 --port 30000\n"
    )
    report = run_cli(["check", "--format", "json", "--no-resolve", "launch.sh"], cwd=tmp_path).json
    (server,) = report["servers"]
    assert server["argv"] == [
        "python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", "--tp-size", "2",
        "--port", "30000",
    ]  # fmt: skip
    (hop,) = report["transport"]["hops"]
    assert (hop["via"], hop["pod"], hop["container"], hop["namespace"]) == (
        "kubectl exec", "deploy/sglang", "server", "llm",
    )  # fmt: skip
    assert "SH040" not in {f["code"] for f in report["findings"]}
    assert [f["code"] for f in report["findings"] if f["severity"] in ("error", "warning")] == []


def test_a_shell_string_in_the_pod_runs_through_that_shell(tmp_path: Path) -> None:
    (tmp_path / "launch.sh").write_text(
        "#!/bin/bash\nkubectl exec sgl-0 -- bash -c 'python3 -m sglang.launch_server --model-path m "
        '--port "${PORT:-30000}"\'\n'
    )
    report = run_cli(["check", "--format", "json", "--no-resolve", "launch.sh"], cwd=tmp_path).json
    (server,) = report["servers"]
    assert server["argv"] == [*SERVER[:-1], "30000"]


def test_the_old_form_stays_unfollowed(tmp_path: Path) -> None:
    (tmp_path / "launch.sh").write_text("#!/bin/bash\nkubectl exec sgl-0 " + " ".join(SERVER) + "\n")
    report = run_cli(["check", "--format", "json", "--no-resolve", "launch.sh"], cwd=tmp_path).json
    assert report["servers"] == []
    assert [(f["code"], f["severity"]) for f in report["findings"] if f["code"] == "SH040"] == [
        ("SH040", "info")
    ]
    assert [f for f in report["findings"] if f["severity"] in ("error", "warning")] == []


def test_the_options_are_kubectl_s_own() -> None:
    """data/kubectl_exec_options.json, generated from `kubectl exec --help` and `kubectl options` by
    scripts/gen_kubectl_exec_options.py: a switch takes no value, every other option does."""
    from argtrace.layers.transport.kube_exec import _options

    switches, valued = _options()
    assert {"-i", "-t", "-q", "--stdin", "--tty", "--insecure-skip-tls-verify"} <= switches
    assert {"-c", "--container", "-n", "--namespace", "--context", "--kubeconfig", "-f"} <= valued
    assert not switches & valued


def test_the_generator_reads_kubectl_s_help_lines() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "gen_kubectl_exec_options", Path(__file__).parents[2] / "scripts/gen_kubectl_exec_options.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # lines as kubectl v1.32.4 prints them (`kubectl exec --help`)
    text = "Options:\n    -c, --container='':\n\tContainer name.\n\n    -i, --stdin=false:\n\tPass stdin\n"
    text += "    --pod-running-timeout=1m0s:\n\tThe length of time\n"
    assert module.options(text) == [
        ("-c", "--container", True),
        ("-i", "--stdin", False),
        (None, "--pod-running-timeout", True),
    ]


def test_short_options_run_together_as_pflag_reads_them() -> None:
    got = parse_kube_exec(["kubectl", "exec", "-itcmain", "p", "--", "vllm", "serve"])
    assert got == KubeExec("p", "main", None, ("vllm", "serve"), 5)
    got = parse_kube_exec(["kubectl", "exec", "-n=llm", "-c=side", "p", "--", "vllm", "serve"])
    assert got == KubeExec("p", "side", "llm", ("vllm", "serve"), 6)
    got = parse_kube_exec(["kubectl", "exec", "-ti", "-c", "side", "p", "--", "vllm", "serve"])
    assert got == KubeExec("p", "side", None, ("vllm", "serve"), 7)
