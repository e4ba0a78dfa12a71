"""Every target of ``argtrace fleet`` read, in parallel and bounded (``parallel.py``): the replicas, and
the targets that did not answer (never an exception for one target)."""

from __future__ import annotations

import argparse

from argtrace.layers.fleet.analysis import Replica, Unanswered

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def read_fleet(args: argparse.Namespace) -> tuple[list[Replica], list[Unanswered]]:
    from argtrace.layers.fleet.hosts import open_host, read_host
    from argtrace.layers.fleet.parallel import run_bounded
    from argtrace.layers.fleet.urls import read_url
    from argtrace.layers.live import display_url, normalise_url
    from argtrace.remote.ssh import parse_target

    timeout = float(args.live_timeout)
    # Bad target text is a usage error before anything is contacted.
    for url in args.url:
        normalise_url(url)
    targets = [parse_target(text) for text in args.fleet_hosts]
    ssh_options = list(getattr(args, "ssh_option", None) or ())
    items: list[tuple[str, Any]] = [("url", u) for u in args.url]
    items += [("host", open_host(t, ssh_options, timeout)) for t in targets]
    if args.kube:
        items.append(("kube", None))

    def work(item: tuple[str, Any]) -> list[Replica | Unanswered]:
        kind, what = item
        if kind == "url":
            return [read_url(what, api_key=args.api_key, insecure=args.insecure, timeout=timeout)]
        if kind == "host":
            return read_host(what)
        from argtrace.layers.fleet.kube import read_kube

        return read_kube(
            args.selector,
            namespace=args.namespace,
            context=args.context,
            kubeconfig=args.kubeconfig,
            timeout=timeout,
        )

    def abort(item: tuple[str, Any]) -> None:
        if item[0] == "host":
            item[1].abort()

    # A URL makes up to five requests of ``timeout`` each; a node's session a handful of requests; the
    # Kubernetes listing up to MAX_PAGES pages: each target's own deadline covers its whole read.
    from argtrace.layers.fleet.kube import MAX_PAGES

    per_target = {"url": 5 * timeout, "host": 4 * timeout, "kube": MAX_PAGES * timeout}
    from argtrace.remote.host import current_host

    # Under the global ``argtrace --host NODE`` the URLs are read from that node, through its one ssh
    # session, which answers one request at a time: then the targets are read one after another.
    jobs = 1 if current_host().is_remote else args.jobs
    outcomes = run_bounded(items, work, jobs=jobs, timeout=lambda item: per_target[item[0]], abort=abort)
    replicas: list[Replica] = []
    unanswered: list[Unanswered] = []
    for outcome in outcomes:
        kind, what = outcome.item
        label = (
            display_url(normalise_url(what))
            if kind == "url"
            else (what.label if kind == "host" else "--kube")
        )
        if outcome.timed_out:
            unanswered.append(Unanswered(label, kind, f"no answer within {per_target[kind]:g} s"))
            if kind == "host":
                what.close()
            continue
        if outcome.error is not None:
            from argtrace.model import UsageError

            if isinstance(outcome.error, UsageError) and kind == "kube":
                raise outcome.error  # the client is not installed: the command cannot do what was asked
            unanswered.append(Unanswered(label, kind, str(outcome.error) or type(outcome.error).__name__))
            continue
        for entry in outcome.result or []:
            if isinstance(entry, Replica):
                replicas.append(entry)
            else:
                unanswered.append(entry)
    return replicas, unanswered
