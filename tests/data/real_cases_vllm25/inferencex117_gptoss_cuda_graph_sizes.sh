# https://github.com/SemiAnalysisAI/InferenceX/issues/117 (2025-10-21, vLLM 0.11.0: "with the config for gptoss, the cudagraph sizes was set to 2000 ... As far as I can see, vLLM will override the value to 992 for GPT-OSS"; the config the issue quotes from gptoss_fp4_h200_slurm.sh, and the serve line that reads it)
CALCULATED_MAX_MODEL_LEN=10240
cat > config.yaml << EOF2
async-scheduling: true
no-enable-prefix-caching: true
cuda-graph-sizes: 2048
max-num-batched-tokens: 8192
max-model-len: $CALCULATED_MAX_MODEL_LEN
EOF2
vllm serve openai/gpt-oss-120b --config config.yaml --tensor-parallel-size 8
