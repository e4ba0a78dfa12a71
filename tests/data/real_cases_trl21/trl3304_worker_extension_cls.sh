#!/bin/bash
# Source: https://github.com/huggingface/trl/issues/3304 (2025-04-16): `trl vllm-serve` on a vLLM older than
# TRL's vllm extra (>=0.8.3); the server stops with
# "TypeError: EngineArgs.__init__() got an unexpected keyword argument 'worker_extension_cls'" (the launch as
# posted; the report names neither release: "I know, should run `pip install trl[vllm]` first").
trl vllm-serve --model Qwen/Qwen2.5-72B --tensor_parallel_size 8
