# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/9316 (2025-08-18), seen 2026-12-03: "launch_server.py: error: argument --tool-call-parser: invalid choice: 'gpt-os'": the PR's own example of a mistyped parser name. The value as posted; the model is a stand-in.
python -m sglang.launch_server --model-path openai/gpt-oss-20b --tool-call-parser gpt-os
