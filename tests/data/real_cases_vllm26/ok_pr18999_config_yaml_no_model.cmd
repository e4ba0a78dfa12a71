# https://github.com/vllm-project/vllm/pull/18999 -- correct: the model as the positional argument and a YAML of server settings (the PR shows it start: "Application startup complete."). The YAML is ok_pr18999_config.yaml beside this file.
vllm serve meta-llama/Meta-Llama-3-8B-Instruct --config ok_pr18999_config.yaml
