# Copied from https://github.com/vllm-project/vllm/pull/29582 (2025-11-27; seen 2026-12-03): the test plan of the PR that made --tokenizer optional for GGUF: a remote GGUF as `<repo_id>:<quant_type>`, which the log shows starting ("Resolved architecture: Qwen3ForCausalLM"). No release is named (the form is accepted from vLLM 0.12.0).
vllm serve unsloth/Qwen3-0.6B-GGUF:IQ1_S
