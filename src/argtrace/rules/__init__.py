"""The rule catalog: every finding code argtrace can emit, with its documentation, example and fix.

One rule is one small object (like a shellcheck SC code or a ruff rule). Codes are grouped by layer with a
two-letter prefix:

    TP transport   SH shell   PR process   PA parser   RS resolution   LG log   LV live   MM memory

Findings from the real shellcheck keep their own ``SCxxxx`` codes (layer ``shell``); they are documented
by shellcheck, not here. One page per code, ``docs/rules/CODE.md``, and the index ``docs/rules/README.md``
are generated from this catalog by ``scripts/gen_rules_doc.py``; a test runs every rule's example through
the real CLI.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from argtrace.model import Basis, Evidence, Finding, Layer, Severity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LAYER_PREFIX: Mapping[Layer, str] = {
    "transport": "TP",
    "shell": "SH",
    "process": "PR",
    "parser": "PA",
    "resolution": "RS",
    "log": "LG",
    "live": "LV",
    "memory": "MM",
}

# The modules that define rules, one per layer. Importing them only builds small frozen objects.
_RULE_MODULES = (
    *(f"argtrace.rules.{layer}" for layer in LAYER_PREFIX),
    # PR100-PR199: the observed process (``run``, ``check --pid``) against the static prediction.
    "argtrace.rules.process_observed",
    # PA030-PA040: the server starts of one multi-node launch read together.
    "argtrace.rules.multinode",
    # PA041-PA043: the prefill and decode servers of a PD launch and its router read together.
    "argtrace.rules.disaggregation",
    # argtrace lint (a tree of launch files, no script arguments): SH030.
    "argtrace.rules.lint",
    # LV050-LV059: argtrace fleet, several running replicas read together.
    "argtrace.rules.fleet",
    # wrappers, images and Kubernetes pods around the server: SH040-SH049, TP040-TP049, PR040-PR049.
    "argtrace.rules.wrappers",
    # RS030-RS035: values a server's start-up refuses (layers/start_values.py, layers/start_raises.py).
    "argtrace.rules.start_values",
    # TP060-TP069: systemd service units and SkyPilot task YAML as launch carriers.
    "argtrace.rules.carriers",
    # TP080-TP082: Ray Serve LLM serve configs (and a RayService's serveConfigV2) as launch carriers.
    "argtrace.rules.rayserve",
    # TP085-TP088: Dockerfiles, GitHub Actions workflows and Podman quadlets as launch carriers.
    "argtrace.rules.launchfiles",
    # TP089-TP091: dstack run configurations (.dstack.yml services and tasks) as launch carriers.
    "argtrace.rules.dstack",
    # TP092-TP093: Kustomize overlays, `gcloud run deploy`, Knative / Cloud Run services.
    "argtrace.rules.deployers",
    # TP098-TP099: Supervisor configurations (supervisord.conf, conf.d/*.conf) as launch carriers.
    "argtrace.rules.supervisor",
    # TP101-TP102: Procfiles (honcho, foreman) and Apptainer/Singularity definition files.
    "argtrace.rules.launchers",
    # TP094-TP097: Python programs that start a server (layers/transport/python_launch.py).
    "argtrace.rules.pylaunch",
    # RS047-RS050: the model class config.json names against the launch (layers/model_caps.py).
    "argtrace.rules.model_caps",
)


@dataclass(frozen=True)
class Example:
    """A way to make a rule fire through the real CLI.

    ``files`` are written into an empty working directory (text, or bytes for CRLF/BOM/binary cases);
    ``argv`` is passed to ``argtrace`` there. ``needs`` names what must be available (``"resolver:sglang"``,
    ``"sshd"``, ...); the rule test skips an example whose needs the machine lacks, and CI provides them.

    A trigger too large to print (a 256 KB script) is built by ``generate`` when the test needs it, and its
    page shows ``summary`` instead of the files: a rule page stays short and holds no control bytes.
    """

    argv: Sequence[str]
    files: Mapping[str, str | bytes] = field(default_factory=dict)
    needs: Sequence[str] = ()
    generate: Callable[[], Mapping[str, str | bytes]] | None = None
    summary: str | None = None

    def __init__(
        self,
        argv: Sequence[str],
        files: Mapping[str, str | bytes] | None = None,
        needs: Sequence[str] = (),
        generate: Callable[[], Mapping[str, str | bytes]] | None = None,
        summary: str | None = None,
    ) -> None:
        # the fields in one update of the frozen instance's __dict__, not one object.__setattr__ each as
        # dataclasses' own __init__ does: the catalog makes ~500 examples at import (issue 18); the
        # fields and their defaults are the dataclass's (tests/test_startup.py compares them)
        if files is None:
            files = {}
        if generate is not None and (files or not summary):
            raise ValueError("a generated example has no literal files and needs a summary for its page")
        self.__dict__.update(argv=argv, files=files, needs=needs, generate=generate, summary=summary)

    def written_files(self) -> Mapping[str, str | bytes]:
        """The files to write into the example's working directory."""
        return self.generate() if self.generate is not None else self.files


@dataclass(frozen=True)
class Rule:
    """One rule of argtrace's catalog: its code, layer, severity and title, why it matters, the fix, and
    examples that trigger it and that are correct (``docs/rules/`` is generated from these)."""

    code: str
    layer: Layer
    severity: Severity
    title: str
    # Why this matters to someone launching a server (shellcheck's "Rationale", ruff's "Why is this bad?").
    rationale: str
    fix: str
    example: Example
    # The same situation written correctly: running it must not produce this code.
    correct: Example | None = None
    exceptions: str | None = None
    # What this rule's findings rest on when it is not its layer's usual basis (``model.LAYER_BASIS``):
    # e.g. PR100+ compare an observed process, TP findings under ``--host`` read the node.
    basis: Basis | None = None

    def __init__(
        self,
        code: str,
        layer: Layer,
        severity: Severity,
        title: str,
        rationale: str,
        fix: str,
        example: Example,
        correct: Example | None = None,
        exceptions: str | None = None,
        basis: Basis | None = None,
    ) -> None:
        # one update of the frozen instance's __dict__ (as Example's): ~360 rules at import
        self.__dict__.update(
            code=code,
            layer=layer,
            severity=severity,
            title=title,
            rationale=rationale,
            fix=fix,
            example=example,
            correct=correct,
            exceptions=exceptions,
            basis=basis,
        )

    def finding(
        self,
        message: str,
        *,
        at: str | None = None,
        setting: str | None = None,
        evidence: Sequence[Evidence] = (),
        fix: str | None = None,
        severity: Severity | None = None,
        launch: int | None = None,
        server: int | None = None,
        basis: Basis | None = None,
    ) -> Finding:
        """A finding of this rule; ``fix`` defaults to the rule's generic fix."""
        return Finding(
            code=self.code,
            severity=severity or self.severity,
            layer=self.layer,
            message=message,
            at=at,
            fix=fix if fix is not None else self.fix,
            setting=setting,
            evidence=tuple(evidence),
            launch=launch,
            server=server,
            basis=basis or self.basis,
        )


class OnFirstUse:
    """A rule module, imported when one of its rules is first read: a layer that hands its rules module to
    helpers which mostly find nothing (``startup_rules``) imports the module only when one makes a finding
    (each rule module's import is about 1.3 M instructions of a check, issue 18)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)


def all_rules() -> list[Rule]:
    """Every rule, sorted by code. Imports the per-layer modules on first call."""
    rules: list[Rule] = []
    for name in _RULE_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        rules.extend(v for v in vars(module).values() if isinstance(v, Rule))
    codes = [r.code for r in rules]
    duplicates = {c for c in codes if codes.count(c) > 1}
    if duplicates:
        raise RuntimeError(f"duplicate rule codes: {sorted(duplicates)}")
    return sorted(rules, key=lambda r: r.code)


def rule_by_code(code: str) -> Rule | None:
    return next((r for r in all_rules() if r.code == code), None)
