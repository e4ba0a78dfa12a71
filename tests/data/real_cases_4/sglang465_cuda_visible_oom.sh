# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/465, seen 2026-12-02: the two lines run on an H100 80GB host where the launch hits CUDA out of memory at start-up, GPU 0 full and GPU 1 (the one made visible) empty; the report's API key is written REDACTED-KEY here.
export CUDA_VISIBLE_DEVICES=1
python -m sglang.launch_server --model-path lmms-lab/llama3-llava-next-8b --tokenizer-path lmms-lab/llama3-llava-next-8b-tokenizer --port=30000 --host="0.0.0.0" --tp-size=1 --api-key='REDACTED-KEY'  --random-seed=1234 --context-length=8192
