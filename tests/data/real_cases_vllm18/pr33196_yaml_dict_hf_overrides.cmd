# https://github.com/vllm-project/vllm/pull/33196 (main of 2026-01-27; the launch fails with "argument --hf-overrides: Value {'architectures': ['Qwen3ForCausalLM']} cannot be converted to <function loads ...>": load_config_file turns a YAML dict into str(dict); the PR was closed unmerged)
vllm serve --config pr33196_config.yaml
