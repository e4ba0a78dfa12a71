# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/34545, seen 2026-12-02: the command line as the report shows it (vllm 0.15.0 with vllm-omni 0.14.0 installed).
vllm serve /root/Qwen-Image-Edit-2509 --omni --port 8092 --max-num-seqs 10 --served-model-name Qwen-Image-Edit-2509 --tensor-parallel-size 2
