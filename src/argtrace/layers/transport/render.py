"""Text view of the ``transport`` report section (``render/text.py`` ``SECTION_VIEWS``).

This module owns how each hop (ssh, an uploaded script, ``--host``, docker, compose, Kubernetes, tmux)
and each upload is drawn for people; it reads the finished section and never computes.
"""

from __future__ import annotations

from collections.abc import Mapping

from argtrace.layers.transport.words import _show_argv

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def render_transport_section(section: Mapping[str, Any]) -> Any:
    """Text view of the ``transport`` report section (``render/text.py`` SECTION_VIEWS): each hop with what
    the next machine or program receives, and every upload with the content that later runs."""
    from rich.text import Text

    out = Text("How the command travels", style="bold")
    for hop in section.get("hops") or []:
        out.append(f"\n  {hop.get('at') or '?'}  ", style="dim")
        via = str(hop.get("via") or "?")
        out.append(via, style="bold")
        if hop.get("error"):
            out.append(f"  (not followed: {hop['error']})", style="yellow")
            continue
        if via == "ssh":
            port = f" -p {hop['port']}" if hop.get("port") else ""
            out.append(f" {hop.get('host')}{port}")
            remote = hop.get("remote_command")
            if remote is None:
                out.append("  remote command not known statically", style="yellow")
            elif remote == "":
                out.append("  (no command: the login shell reads stdin)")
            else:
                out.append("\n      the node's shell receives: ", style="dim")
                out.append(repr(remote) if "\n" in remote else remote)
        elif via == "uploaded-script":
            out.append(f" {hop.get('host')}:{hop.get('path')} {' '.join(hop.get('args') or [])}")
            out.append(f"  (uploaded at {hop.get('uploaded_at')})", style="dim")
        elif "files" in hop:  # a launch file handed to its runner (`kubectl apply -f`): transport/handoff.py
            for handed in hop["files"] or []:
                out.append(f"\n      {handed.get('file')}: ", style="dim")
                out.append(str(handed.get("read") or "?"))
            if hop.get("unread"):
                out.append(f"\n      not read: {hop['unread']}", style="yellow")
        elif via == "--host":
            out.append(f" {hop.get('user')}@{hop.get('hostname')} ({hop.get('host')}), cwd {hop.get('cwd')}")
            out.append(f"\n      non-interactive PATH: {hop.get('path')}", style="dim")
        elif via.startswith("--host"):
            found = hop.get("resolved") or "not found"
            version = hop.get("framework_version")
            out.append(f"  {hop.get('program')} -> {found}")
            if "framework_version" in hop:
                out.append(f"  (framework {version or 'not installed'})", style="dim")
        else:
            argv = hop.get("argv")
            if argv is not None:
                out.append("  " + _show_argv(argv))
            for key in ("service", "container", "image"):
                if hop.get(key):
                    out.append(f"  {key} {hop[key]}", style="dim")
            placement = hop.get("placement") or {}
            if placement.get("alternative_argv"):  # Dynamo's operator: the pathway the file does not show
                deployer = placement.get("deployer")
                out.append(f"\n      the operator's {deployer} pathway, assumed; on Grove: ", style="dim")
                out.append(_show_argv(placement["alternative_argv"]))
            for env_file in hop.get("env_files") or []:
                out.append(f"\n      env file {env_file.get('path')}: ", style="dim")
                if env_file.get("problem"):
                    out.append(str(env_file["problem"]), style="red")
                elif env_file.get("skipped"):
                    out.append(f"not read ({env_file['skipped']})", style="yellow")
                else:
                    out.append(", ".join(env_file.get("variables") or []) or "(no variables)")
    for upload in section.get("uploads") or []:
        host = upload.get("host")
        target = f"{host}:{upload.get('path')}" if upload.get("path") else str(host)
        out.append(f"\n  {upload.get('at') or '?'}  ", style="dim")
        out.append("upload ", style="bold")
        out.append(f"{target}  via {upload.get('via') or 'ssh stdin'}")
        if upload.get("expansions"):
            out.append(f"  expanded locally: {', '.join(upload['expansions'])}", style="yellow")
        content = upload.get("content")
        if content is None:
            reason = upload.get("content_omitted") or "content not known statically"
            out.append(f"\n      ({reason})", style="dim")
            continue
        lines = content.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        for number, line in enumerate(lines[:40], start=1):
            out.append(f"\n      {number:>3} ", style="dim")
            out.append(line.replace("\r", "\\r"))
        if len(lines) > 40:
            out.append(f"\n      ... {len(lines) - 40} more line(s)", style="dim")
    return out
