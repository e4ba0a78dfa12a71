"""Task runners and configuration tools whose files argtrace does not read: Ansible playbooks and task
files, justfiles and go-task Taskfiles.

Each expands its own templates before a shell sees a command (Ansible: Jinja2 ``{{ var }}`` from
``vars:``, inventory and facts, with ``environment:``, ``become`` and ``args: chdir`` around the module;
just: ``{{ expr }}`` and ``:=`` assignments, each recipe line run by ``sh -cu``; go-task: Go templates
``{{.VAR}}``). Read as bash, ``- name:`` and ``---`` lines are commands that do not exist (SH004 errors) and
``{{ model }}`` is a literal word given to the server: wrong alarms on correct launches. So such a file is
refused (exit 2). This module owns telling these files apart and the one message naming the server
commands each holds and how to check the command the tool really runs (its dry-run output).
"""

from __future__ import annotations

import posixpath
import re

_SERVER_WORDS = re.compile(
    r"(vllm\s+serve|vllm\.entrypoints|sglang\.launch_server|sglang\s+serve|sglang_router|vllm-router)"
)
# a play's keys (ansible-core's Play attributes that only a play has)
_PLAY_KEYS = frozenset({"hosts", "import_playbook", "ansible.builtin.import_playbook"})
# task keys that name an action: the modules a launch is written with, by short name, and the blocks
# and includes a task file holds; any fully qualified collection name (`ansible.builtin.shell`) too
_MODULES = frozenset(
    {
        "shell",
        "command",
        "raw",
        "script",
        "block",
        "include_tasks",
        "import_tasks",
        "include_role",
        "import_role",
        "docker_container",
        "docker_compose",
        "docker_compose_v2",
        "systemd",
        "service",
        "template",
        "copy",
        "file",
        "pip",
        "apt",
        "yum",
        "dnf",
        "lineinfile",
        "debug",
        "set_fact",
        "git",
        "get_url",
        "unarchive",
        "wait_for",
        "uri",
        "systemd_service",
        "async_status",
    }
)
_FQCN = re.compile(r"^[a-z0-9_]+\.[a-z0-9_]+\.[a-z0-9_]+$")
_JUST_NAMES = frozenset({"justfile", ".justfile"})


def _server_lines(text: str, label: str) -> str:
    """`` (the server command at FILE:LINE[, ...])`` for the lines that name a server, or ``""``."""
    places = [f"{label}:{n}" for n, line in enumerate(text.splitlines(), 1) if _SERVER_WORDS.search(line)]
    if not places:
        return ""
    shown = ", ".join(places[:4]) + (", ..." if len(places) > 4 else "")
    return f" (a server command at {shown})"


def _ansible_kind(label: str, data: bytes) -> str | None:
    """``"playbook"``, ``"task file"`` or ``None``: a YAML list at the top whose items are plays (a
    ``hosts:`` or ``import_playbook:`` key) or tasks (a module key: ``ansible.builtin.shell:``, ``shell:``,
    ``docker_container:``, ``block:``...), as ansible-core reads a playbook and a role's ``tasks/*.yml``."""
    if not label.lower().endswith((".yml", ".yaml")) or data.startswith(b"#!"):
        return None
    if not re.search(rb"(?m)^-\s", data[:65536]):
        return None  # an Ansible file is a list at its top; a mapping is a manifest or another tool's
    from argtrace.layers.transport.yamlnodes import _load_yaml_nodes
    from argtrace.model import UsageError

    try:
        nodes = _load_yaml_nodes(data, label).nodes
    except UsageError:
        return None
    if not nodes or getattr(nodes[0], "id", "") != "sequence":
        return None
    tasks = 0
    for item in nodes[0].value:
        if getattr(item, "id", "") != "mapping":
            return None
        keys = {getattr(k, "value", None) for k, _ in item.value}
        if keys & _PLAY_KEYS:
            return "playbook"
        if any(isinstance(k, str) and (k in _MODULES or _FQCN.match(k)) for k in keys):
            tasks += 1
    return "task file" if tasks else None


def ansible_not_a_launch(label: str, data: bytes) -> str | None:
    """Why an Ansible playbook or task file is not read, or ``None``."""
    kind = _ansible_kind(label, data)
    if kind is None:
        return None
    text = data[:65536].decode("utf-8", "replace")
    return (
        f"{label}: an Ansible {kind}, which argtrace does not read{_server_lines(text, label)}: Ansible "
        "renders `{{ var }}` with Jinja2 from vars, inventory and facts and runs a task's "
        "`shell:`/`command:` or container module with its `environment:`, `become` and `args: chdir` on "
        "the target host, none of "
        "which a shell sees. Check the command the task runs: `ansible-playbook -vvv` prints it, or write it "
        "as a command line (`argtrace check -c 'vllm serve ...'`, `--env NAME=value` for its "
        "`environment:`), or as the systemd unit or compose file the play installs."
    )


def justfile_not_a_launch(label: str, data: bytes) -> str | None:
    """Why a justfile (``justfile``, ``Justfile``, ``.justfile``, ``*.just``) is not read, or ``None``."""
    name = posixpath.basename(label)
    if not (name.lower() in _JUST_NAMES or name.endswith(".just")) or data.startswith(b"#!"):
        return None
    text = data[:65536].decode("utf-8", "replace")
    return (
        f"{label}: a justfile, which argtrace does not read{_server_lines(text, label)}: just expands "
        "`{{ expr }}` and its `:=` variables and recipe parameters itself, then runs each recipe line with "
        "`sh -cu`, so read as a shell script `{{model}}` would be a literal word given to the server. "
        "Check the commands just runs: `just --dry-run RECIPE ARGS` prints them; check one with "
        "`argtrace check -c '...'`."
    )


def taskfile_not_a_launch(label: str, data: bytes) -> str | None:
    """Why a go-task Taskfile (``Taskfile.yml`` and its variants, top-level ``version:`` and ``tasks:``) is
    not read, or ``None``."""
    name = posixpath.basename(label).lower()
    if not re.match(r"^taskfile(\.dist)?\.ya?ml$", name):
        return None
    text = data[:65536].decode("utf-8", "replace")
    if not re.search(r"(?m)^tasks\s*:", text):
        return None
    return (
        f"{label}: a Taskfile (go-task), which argtrace does not read{_server_lines(text, label)}: task "
        "expands its Go templates (`{{.VAR}}`) and `vars:`/`env:` itself and runs each `cmds:` entry with "
        "its own shell interpreter. Check the commands task runs: `task --dry TASK` prints them; check one "
        "with `argtrace check -c '...'`."
    )
