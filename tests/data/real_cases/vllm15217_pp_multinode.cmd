# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/15217, seen 2026-12-01: the command line as the report shows it (placeholders where it redacts).
vllm serve ./DeepSeek-V3 --trust-remote-code --tensor-parallel-size 1 --pipeline-parallel-size 2
