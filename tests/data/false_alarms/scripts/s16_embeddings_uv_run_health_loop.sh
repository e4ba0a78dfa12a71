# Reconstructed (not copied) after https://github.com/prabodh1194/annual-reports-parser/blob/340773d643f68f73a48168633023c2ee7095b600/setup_embeddings_model.sh, seen 2026-12-03: the model name and $HOME location, the download with `|| exit 1`, `uv run python -m vllm.entrypoints.openai.api_server ... --task embed &` and the `while ! curl` health loop.
MODEL_NAME="Alibaba-NLP/gte-Qwen2-7B-instruct"
MODEL_LOCATION="$HOME/model"
HF_HUB_ENABLE_HF_TRANSFER=1 uv run huggingface-cli download --local-dir "$MODEL_LOCATION" $MODEL_NAME || exit 1
uv run python -m vllm.entrypoints.openai.api_server \
--host 0.0.0.0 \
--model "$MODEL_LOCATION" \
--gpu-memory-utilization 0.5 \
--max-model-len 4072 \
--task embed &
while ! curl -s http://localhost:8000/health > /dev/null; do
  sleep 5
done
