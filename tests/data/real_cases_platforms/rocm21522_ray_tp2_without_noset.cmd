# https://github.com/vllm-project/vllm/pull/21522 -- MI250, 2025-07: this command "throws error RuntimeError: HIP error: invalid device ordinal" (Ray changes the workers' device visibility); with RAY_EXPERIMENTAL_NOSET_HIP_VISIBLE_DEVICES=1 before it, it works (ok_rocm21522_noset_hip.cmd)
vllm serve meta-llama/Llama-3.1-8B-Instruct --distributed-executor-backend="ray" --tensor-parallel-size 2
