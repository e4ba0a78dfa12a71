"""Prefill/decode disaggregation rules (PA041-PA043, parser layer): the prefill and decode servers of one PD
launch and the router in front of them, read together (``layers/disaggregation.py``). Each server's argv is
parsed by its framework's parser like any start; the router's by ``launch_router``'s own parser
(``frameworks/router_launch.py``)."""

from __future__ import annotations

from argtrace.rules import Example, Rule

_M = "--model-path meta-llama/Llama-3.1-8B-Instruct"
_ROUTER = "python -m sglang_router.launch_router --pd-disaggregation --host 0.0.0.0 --port 8000"


def _pd(prefill: str, decode: str, router: str) -> Example:
    lines = [
        "#!/bin/bash",
        f"python -m sglang.launch_server {_M} --disaggregation-mode prefill --port 30000 {prefill} &",
        f"python -m sglang.launch_server {_M} --disaggregation-mode decode --port 30001 --base-gpu-id 1 "
        f"{decode} &",
        f"{_ROUTER} {router}",
        "",
    ]
    return Example(argv=("check", "--no-resolve", "pd.sh"), files={"pd.sh": "\n".join(lines)})


def _nixl(port_p: str, port_d: str) -> Example:
    kv = """'{"kv_connector":"NixlConnector","kv_role":"kv_both"}'"""
    lines = [
        "#!/bin/bash",
        f"CUDA_VISIBLE_DEVICES=0 {port_p}vllm serve Qwen/Qwen3-0.6B --port 8100 --kv-transfer-config {kv} &",
        f"CUDA_VISIBLE_DEVICES=1 {port_d}vllm serve Qwen/Qwen3-0.6B --port 8200 --kv-transfer-config {kv} &",
        "wait",
        "",
    ]
    return Example(argv=("check", "--no-resolve", "nixl.sh"), files={"nixl.sh": "\n".join(lines)})


def _one(kv: str) -> Example:
    return Example(
        argv=("check", "--no-resolve", "serve.sh"),
        files={"serve.sh": f"#!/bin/bash\nvllm serve Qwen/Qwen3-0.6B --kv-transfer-config '{kv}'\n"},
    )


PA_PD_DISAGREE = Rule(
    code="PA041",
    layer="parser",
    severity="error",
    basis="static",  # ports and modes read from the file, not from one release's parser
    title="The prefill and decode servers of a PD launch and its router disagree",
    rationale="In SGLang's PD disaggregation the router sends each request to a prefill server and a decode "
    "server it was given (`--prefill URL [BOOTSTRAP_PORT]`, `--decode URL`); the decode server then asks the "
    "prefill's bootstrap server, at the router's bootstrap port for that prefill or, when the router gives "
    "none, at the decode server's own `--disaggregation-bootstrap-port` (SGLang 0.5.23 "
    "`managers/scheduler.py`, `handle_generate_request`), for the KV cache. The bootstrap server runs on the "
    "prefill server only, at its `--disaggregation-bootstrap-port` (default 8998; "
    "`managers/disagg_service.py`). "
    "A port that differs, a URL that names a server started in the other mode, or prefill and decode servers "
    "with different `--disaggregation-transfer-backend` (each side builds its KV sender or receiver from its "
    "own backend: mooncake, nixl, ascend) leave every request failing or waiting for a KV cache that never "
    "comes. vLLM's PD instances likewise need a producer and a consumer: two PyNcclConnector instances with "
    "one `kv_rank` both claim one place of the KV transfer group.",
    fix="give the router the prefill's bootstrap port (`--prefill URL PORT`), or the same "
    "--disaggregation-bootstrap-port to the prefill and decode servers",
    example=_pd(
        "--disaggregation-bootstrap-port 9000",
        "",
        "--prefill http://127.0.0.1:30000 --decode http://127.0.0.1:30001",
    ),
    correct=_pd(
        "--disaggregation-bootstrap-port 9000",
        "",
        "--prefill http://127.0.0.1:30000 9000 --decode http://127.0.0.1:30001",
    ),
    exceptions="Only servers this file starts on the router's machine (its own lines, not ssh or pods) are "
    "matched to the router's URLs, by port; a URL no such server answers is not judged (it may be another "
    "machine). Prefill and decode servers may differ in tp and dp sizes (SGLang slices the KV cache between "
    "them), so those are not compared; different model paths are a warning (two paths can hold one model).",
)

PA_PD_PORT_CLASH = Rule(
    code="PA042",
    layer="parser",
    severity="error",
    basis="static",  # two listeners on one address: no release decides it
    title="Two PD servers on one machine bind the same KV transfer port",
    rationale="Each SGLang prefill server starts a bootstrap server on its `--host` at its "
    "`--disaggregation-bootstrap-port` (default 8998); each vLLM instance with NixlConnector starts a NIXL "
    "handshake listener at `VLLM_NIXL_SIDE_CHANNEL_PORT` (default 5600 in vLLM 0.33.0's `envs.py`; 5557 "
    "before 0.11.1) on `VLLM_NIXL_SIDE_CHANNEL_HOST`. Two on one machine with the same port: the second bind "
    'fails ("Address already in use"), and the KV transfers of that server never start. '
    'vLLM\'s NixlConnector guide: "Each vLLM worker needs a unique port on its host".',
    fix="give each server on the machine its own port (--disaggregation-bootstrap-port, "
    "VLLM_NIXL_SIDE_CHANNEL_PORT)",
    example=_nixl("", ""),
    correct=_nixl("VLLM_NIXL_SIDE_CHANNEL_PORT=5600 ", "VLLM_NIXL_SIDE_CHANNEL_PORT=5601 "),
    exceptions="Servers bound to different hosts (`--host 127.0.0.1` and `--host 127.0.0.2`, two side "
    "channel hosts) do not clash; starts over ssh, in pods or from a variable host are not placed on one "
    "machine. Ranks of one multi-node server other than rank 0 start no bootstrap server.",
)

PA_KV_TRANSFER_CONFIG = Rule(
    code="PA043",
    layer="parser",
    severity="error",
    title="vLLM's --kv-transfer-config names a connector without a valid kv_role",
    rationale="vLLM's `KVTransferConfig.__post_init__` (vLLM 0.33.0 `config/kv_transfer.py`) refuses a "
    '`kv_connector` without `kv_role` ("Please specify kv_role when kv_connector is set") and a `kv_role` '
    'other than kv_producer, kv_consumer or kv_both; the CLI reports it as "argument --kv-transfer-config: '
    'Value ... cannot be converted" and exits (vllm#19448 on 0.9.0.1).',
    fix='add "kv_role": "kv_producer" (prefill), "kv_consumer" (decode) or "kv_both"',
    example=_one("""{"kv_connector":"NixlConnector"}"""),
    correct=_one("""{"kv_connector":"NixlConnector","kv_role":"kv_both"}"""),
)
