"""What ``argtrace mem`` does, kept out of ``commands/mem.py`` so the CLI stays fast to import."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from argtrace import localfs
from argtrace.layers.memory.analyze import analyze_memory
from argtrace.layers.memory.settings import read_server_settings
from argtrace.model import Evidence, FrameworkInfo, Report, UsageError

GIB = 1 << 30


def run_mem(
    *,
    model_config: Path,
    gpu: str | None,
    framework: str,
    version: str | None,
    server_argv: Sequence[str],
    env: Mapping[str, str],
    from_log: Path | None = None,
    plot: Path | None = None,
    resolver: bool = False,
) -> Report:
    settings = read_server_settings(server_argv, framework)
    log = None
    pre = post = None
    logged = None
    notes: list[str] = []
    if from_log is not None:
        # The log's own version line names the release that ran: it decides the formulas and the framework
        # code used, as it does for `check --log` (frameworks/release.py order: --framework-version first).
        from argtrace.layers.log.check import logged_release

        logged = logged_release(str(from_log), framework)
        if logged is not None and version is None:
            version = logged.version
        elif logged is not None and logged.version != version:
            notes.append(
                f"--framework-version {version} was given, but {logged.describe()} shows {framework} "
                f"{logged.version}: the sizing follows {version}"
            )
            logged = None
    if from_log is not None:
        from argtrace.layers.memory.fromlog import read_log, settings_from_log

        problem = localfs.path_problem(from_log)  # a FIFO or /dev/zero is refused before it is opened
        if problem is not None:
            raise UsageError(f"--from-log {from_log}: {problem}")
        try:
            log = read_log(from_log)
        except OSError as exc:
            raise UsageError(f"{from_log}: cannot read ({exc})") from exc
        # What the server resolved wins over the flags typed here: the log is what it actually used.
        settings = {**settings, **settings_from_log(log)}
        if log.pre_load_gb is None and log.post_load_gb is not None and log.weights_gb is not None:
            # No "Load weight begin" line kept: "mem usage" is begin - end by construction (model_runner.py).
            log.pre_load_gb = round(log.post_load_gb + log.weights_gb, 2)
        if log.pre_load_gb is not None and log.post_load_gb is not None:
            pre, post = int(log.pre_load_gb * GIB), int(log.post_load_gb * GIB)
    result = analyze_memory(
        model_config,
        gpu,
        settings,
        framework,
        version,
        env=env,
        pre_load_bytes=pre,
        post_load_bytes=post,
        # --resolver: SGLang's own sizing code (resolver environment of the version) on the typed flags.
        framework_argv=list(server_argv) if resolver and framework == "sglang" else None,
    )
    section = result.sections["memory"]
    report = Report(
        command="mem",
        framework=FrameworkInfo(
            framework if framework in ("sglang", "vllm") else None,  # type: ignore[arg-type]
            section.get("version") if version is not None else None,
            # "log" only when the log's version line decided the release (not for a log without one);
            # with neither a log's line nor --framework-version nothing decided it: the formulas' release
            # is what the sizing was analysed with, not a release the user named
            "log" if logged is not None else ("bundled-schema" if version is not None else "none"),
            analysed_with=section.get("version") if version is None else None,
            evidence=logged.describe() if logged is not None else None,
        ),
        findings=list(result.findings),
        sections=dict(result.sections),
        notes=notes,
    )
    if log is not None:
        from argtrace.layers.memory.fromlog import compare
        from argtrace.rules import memory as rules

        rows = compare(log, section, int(settings.get("page_size") or 1))
        section["from_log"] = {
            "path": str(from_log),
            "pre_load_avail_gb": log.pre_load_gb,
            "post_load_avail_gb": log.post_load_gb,
            "rows": rows,
        }
        if not rows:
            report.notes.append(f"{from_log}: no allocation lines of rank 0 found")
        for row in rows:
            if not row["ok"]:
                report.findings.append(
                    rules.MM009.finding(
                        f"{row['quantity']}: predicted {row['predicted']}, the log says {row['logged']}",
                        at=f"{from_log}:{row['line']}" if row.get("line") else str(from_log),
                        evidence=(Evidence("log", f"{from_log}:{row['line']}", str(row["logged"])),),
                    )
                )
    if resolver and framework == "vllm" and section.get("vllm"):
        # vLLM: its own KV cache planner in the resolver environment (vllm_probe.py, issue 7).
        from argtrace.layers.memory.vllm_probe import compare_with_vllm

        compare_with_vllm(section, report.notes)
    if plot is not None and section.get("breakdown"):
        from argtrace.layers.memory.render import write_plot

        try:
            write_plot(section, plot)
        except (ValueError, OSError) as exc:
            raise UsageError(str(exc)) from exc
        report.notes.append(f"wrote {plot}")
    return report
