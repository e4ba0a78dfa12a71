# Reconstructed (not copied) after https://github.com/SemiAnalysisAI/InferenceX/pull/2272 (the launch array of benchmarks/single_node/agentic/glm5.2_fp8_mi355x_sglang.sh as the review quotes it), seen 2026-12-02: the array's words; the five variables it expands are set earlier in the script, which the review does not show, so their values here are placeholders.
MODEL_PATH=/models/GLM-5.2-FP8
MODEL=glm-5.2-fp8
PORT=8888
TP=8
EP_SIZE=8
SGLANG_CMD=(
    python3 -m sglang.launch_server
    --model-path "$MODEL_PATH"
    --served-model-name "$MODEL"
    --host 0.0.0.0
    --port "$PORT"
    --trust-remote-code
    --tp "$TP"
    --ep-size "$EP_SIZE"
    --dsa-prefill-backend tilelang
    --dsa-decode-backend tilelang
)
"${SGLANG_CMD[@]}"
