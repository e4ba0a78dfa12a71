# Reconstructed (not copied) after https://github.com/p-doom/tab-model-eval/blob/31b2326414ef355b42434aa36e45be3ca77055d3/src/serving/launch_sglang.sh, seen 2026-12-04: no shebang, `module load CUDA/12.8`, a relative venv's activate script sourced, the model chosen among commented alternatives, Qwen3-Coder-30B-A3B with a 128000 context and a 0.95 static memory fraction, blank lines after the command (kept: the whole script)
module load CUDA/12.8

source .venv/bin/activate

# model_id="qwen/qwen2.5-0.5b-instruct"
model_id="Qwen/Qwen3-Coder-30B-A3B-Instruct"
# model_id="Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8"
# model_id="Qwen/Qwen3-0.6B"

python3 -m sglang.launch_server \
    --model-path $model_id \
    --host 0.0.0.0 \
    --context-length 128000 \
    --port 30000 \
    --mem-fraction-static 0.95




