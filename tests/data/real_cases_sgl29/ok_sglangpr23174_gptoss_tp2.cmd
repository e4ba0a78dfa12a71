# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/23174 (2026-04-19, merged), seen 2026-12-05: a correct launch: the PR's gpt-oss-120b server (hybrid SWA memory pool, chunked prefill) used for its GSM8K run, as posted.
python -m sglang.launch_server --model openai/gpt-oss-120b --tp 2 --trust-remote-code --host 0.0.0.0 --port 30000
