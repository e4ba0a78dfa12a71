# Reconstructed (not copied) after https://github.com/ROCm/TheRock/issues/7700 (2026-08-27, open), seen 2026-12-05: a correct launch: the note's workaround on the affected Radeon GPUs, --attention-backend triton (the model is a stand-in, as in the failing case).
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --host 0.0.0.0 --port 30000 --attention-backend triton
