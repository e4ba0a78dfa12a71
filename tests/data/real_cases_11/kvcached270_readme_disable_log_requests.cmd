# Reconstructed (not copied) after https://github.com/ovg-project/kvcached/pull/270 (README.md before commit bd0b8ed, 2026-03-11), seen 2026-12-02: the README's vLLM command; the PR removes --disable-log-requests "as this flag was removed from vllm since v0.12.0".
vllm serve meta-llama/Llama-3.2-1B-Instruct --disable-log-requests --no-enable-prefix-caching --port=12346
