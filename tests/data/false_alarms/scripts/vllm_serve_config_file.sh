# Reconstructed (not copied) after https://docs.vllm.ai/en/latest/configuration/serve_args.html (Configuration file), seen 2026-12-01: the config file's keys and the --config launch; the file is written by the script here.
cat > config.yaml <<'YAML'
model: meta-llama/Llama-3.1-8B-Instruct
host: "127.0.0.1"
port: 6379
uvicorn-log-level: "info"
YAML
vllm serve --config config.yaml
