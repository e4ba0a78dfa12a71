#!/usr/bin/env python3
# Reconstructed (not copied) after https://github.com/scaleapi/llm-engine/blob/0a4e2f44d4c1adb10e46aa81d20345e79adb75c7/model-engine/model_engine_server/inference/sglang/sglang-startup-script.py
# (2025: the startup script of each pod of a LeaderWorkerSet running multi-node SGLang (DeepSeek R1/V3): weights
# copied by s5cmd, the leader's IP resolved from $LWS_LEADER_ADDRESS, SGLANG_HOST_IP set, then
# `python3 -m sglang.launch_server` with `--host ::` and `--dist-init-addr [ip]:port` from argparse values;
# docstrings and prints shortened)
import argparse
import os
import socket
import subprocess
import time


def wait_for_dns(dns_name: str, max_retries: int = 20, sleep_seconds: int = 3):
    for attempt in range(1, max_retries + 1):
        try:
            socket.getaddrinfo(dns_name, None, socket.AF_UNSPEC)
            return
        except socket.gaierror as e:
            print(f"[DNS-FAIL] Attempt {attempt} to resolve {dns_name} failed: {e}.")
            time.sleep(sleep_seconds)
    raise RuntimeError(f"Could not resolve {dns_name} after {max_retries} attempts.")


def main(model: str, node_rank: int, nnodes: int, tp: int, worker_port: int, leader_port: int):
    model_path = f"/data/model_files/{model}"
    os.makedirs(model_path, exist_ok=True)

    s5cmd_cmd = [
        "s5cmd",
        "--numworkers=512",
        "cp", "--concurrency=10",
        "--include", "*.model", "--include", "*.json", "--include", "*.safetensors",
        "--include", "*.py", "--include", "tokenizer.model.v*",
        "--exclude", "optimizer*",
        f"s3://scale-ml/models/hf-synced-weights/{model}/*",
        model_path,
    ]
    subprocess.check_call(s5cmd_cmd)

    leader_pod_dns = f"{os.environ.get('LWS_LEADER_ADDRESS')}.svc.cluster.local"
    current_pod_dns = f"{os.environ.get('K8S_OWN_POD_NAME')}.{os.environ.get('K8S_LWS_NAME')}.{os.environ.get('K8S_OWN_NAMESPACE')}.svc.cluster.local"
    wait_for_dns(leader_pod_dns)
    wait_for_dns(current_pod_dns)

    addr_info = socket.getaddrinfo(leader_pod_dns, None, socket.AF_UNSPEC)
    ip_addresses = [addr[4][0] for addr in addr_info]
    if len(set(ip_addresses)) != 1:
        raise RuntimeError(f"Expected a single unique IP address for {leader_pod_dns}, got: {ip_addresses}")
    local_ip = ip_addresses[0]

    os.environ["SGLANG_HOST_IP"] = local_ip

    sglang_cmd = [
        "python3",
        "-m",
        "sglang.launch_server",
        "--model-path", model_path,
        "--tp", str(tp),
        "--host", "::",
        "--port", str(worker_port),
        "--dist-init-addr", f"[{local_ip}]:{str(leader_port)}",
        "--nnodes", str(nnodes),
        "--node-rank", str(node_rank),
        "--trust-remote-code",
        "--log-level", "debug",
    ]
    subprocess.check_call(sglang_cmd)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--node-rank", type=int, required=True)
    parser.add_argument("--nnodes", type=int, required=True)
    parser.add_argument("--model", type=str, required=True)
    parser.add_argument("--tp", type=int, default=16)
    parser.add_argument("--worker-port", type=int, default=5005)
    parser.add_argument("--leader-port", type=int, default=5002)
    args = parser.parse_args()
    main(model=args.model, node_rank=args.node_rank, nnodes=args.nnodes, tp=args.tp, worker_port=args.worker_port, leader_port=args.leader_port)
