# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/3855, seen 2026-12-01: the command line as the report shows it (placeholders where it redacts).
docker run --privileged --gpus all -it --rm --shm-size 32g -p 30000:30000 -v ~/.cache/huggingface:/root/.cache/huggingface --env "HF_TOKEN=xxxx" --ipc=host lmsysorg/sglang:dev --host 0.0.0.0 --port 30000
