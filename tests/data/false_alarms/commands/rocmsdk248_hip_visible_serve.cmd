# Reconstructed (not copied) after https://github.com/lamikr/rocm_sdk_builder/issues/248 (2025-04-19), seen 2026-12-02: the single-GPU launch the report shows serving ("gfx1100 works", Uvicorn running); its --tensor-parallel-size 2 launch is the one that fails.
HIP_VISIBLE_DEVICES=0 vllm serve Qwen/Qwen2.5-1.5B-Instruct
