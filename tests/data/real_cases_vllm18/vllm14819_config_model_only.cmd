# https://github.com/vllm-project/vllm/issues/14819 (2025-03-14, release not named, 0.7.3 the newest then: "the model_tag appears to be required via the CLI"; vllm PR#14855/#15798 let the config file give the model, from 0.8.3)
vllm serve --config vllm14819_config_model_only.yaml
