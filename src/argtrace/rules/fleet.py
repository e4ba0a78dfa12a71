"""Fleet rules (LV050-LV059, live layer): several running replicas of one model read together
(``argtrace fleet``, ``layers/fleet``). Examples that need servers declare ``http-fixture:NAME`` needs; with
several, ``{url1}``, ``{url2}``... name them in order (``tests/live/example_support.py``)."""

from __future__ import annotations

from argtrace.rules import Example, Rule

_FX = "http-fixture:sglang-0.5.10.post1"
_FX_EDITED = "http-fixture:sglang-0.5.10.post1-context-32k"

FLEET_DRIFT = Rule(
    code="LV050",
    layer="live",
    severity="warning",
    title="Replicas of one model disagree on a setting",
    rationale="Replicas behind one load balancer are meant to be interchangeable: a request must get the "
    "same context limit, the same batch capacity and the same numerics whichever replica answers. A pod "
    "restarted from an older image, a node whose `--context-length` was edited by hand, or a replica whose "
    "auto-sized `mem_fraction_static` came out different makes some requests fail or slow down on one "
    "replica only, which is hard to see from the outside.",
    fix="start every replica of the model from the same launch (one manifest or script, one image digest)",
    example=Example(argv=["fleet", "--url", "{url1}", "--url", "{url2}"], needs=(_FX, _FX_EDITED)),
    correct=Example(argv=["fleet", "--url", "{url1}", "--url", "{url2}"], needs=(_FX, _FX)),
    exceptions="Settings that differ per replica by design are not compared: the multi-node per-rank "
    "settings (`--node-rank`, vLLM's `--data-parallel-start-rank`, `--headless`, ports), each replica's own "
    "rendezvous address and seed, and the measurements a server reports beside its configuration. Values "
    "are compared only between replicas read the same way (a live server's resolved values with other "
    "live servers, processes and pods by their argv).",
)

FLEET_NO_ANSWER = Rule(
    code="LV051",
    layer="live",
    severity="error",
    title="A fleet target did not answer",
    rationale="A replica that cannot be read cannot be compared: the URL refused or timed out, the node's "
    "ssh session failed or found no SGLang/vLLM process, or the Kubernetes API refused the request or "
    "matched no pod. The rest of the fleet is still compared, but this target's drift is unknown.",
    fix="check the target (the server's --port, ssh access to the node, the kube context, namespace and "
    "label selector), or leave it out of the fleet",
    example=Example(argv=["fleet", "--url", "http://127.0.0.1:1", "--url", "{url}"], needs=(_FX,)),
    correct=Example(argv=["fleet", "--url", "{url}"], needs=(_FX,)),
)

_INTENT = (
    "#!/bin/bash\n"
    "python3 -m sglang.launch_server --model-path /models/Qwen3.6-27B --tp-size 2 --context-length {n}\n"
)

FLEET_NOT_INTENDED = Rule(
    code="LV052",
    layer="live",
    severity="warning",
    title="A replica runs another value than the launch file gives",
    rationale="With `--intent FILE`, each replica is compared with the settings the launch file gives: a "
    "replica that runs another value was started from another file, edited by hand, or the framework "
    "rewrote the value at start (then `argtrace check --url` on that replica says why).",
    fix="restart the replica from the launch file, or change the file to what the fleet should run",
    example=Example(
        argv=["fleet", "--url", "{url}", "--intent", "launch.sh"],
        files={"launch.sh": _INTENT.format(n=32768)},
        needs=(_FX,),
    ),
    correct=Example(
        argv=["fleet", "--url", "{url}", "--intent", "launch.sh"],
        files={"launch.sh": _INTENT.format(n=65536)},
        needs=(_FX,),
    ),
)
