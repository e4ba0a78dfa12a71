# Reconstructed (not copied) after https://github.com/sybil-solutions/vllm-studio/pull/331 (2026-08-03, merged), seen 2026-12-04: a correct launch: the PR's fix, SGLang started through its serve subcommand; model and port are the same stand-ins as the failing case.
sglang serve --model-path Qwen/Qwen3-8B --host 0.0.0.0 --port 30000
