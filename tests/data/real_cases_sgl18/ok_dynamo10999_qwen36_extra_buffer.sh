# Reconstructed (not copied) after https://github.com/ai-dynamo/dynamo/pull/10999 (2026-06-29, merged), seen 2026-12-03: a correct launch: the multimodal-router example adds --mamba-scheduler-strategy extra_buffer for Qwen3.5/Qwen3.6 ("default no_buffer silently disables prefix cache"), with --page-size 16 (the review verified extra_buffer's page-size assertions hold). The case statement is as posted; the model and the launch line around MAMBA_ARGS are stand-ins.
MODEL=${MODEL:-Qwen/Qwen3.6-35B-A3B}
MAMBA_ARGS=()
case "${MODEL}" in
    *Qwen3.5*|*Qwen3.6*) MAMBA_ARGS=(--mamba-scheduler-strategy extra_buffer) ;;
esac
python3 -m sglang.launch_server --model-path "$MODEL" --page-size 16 --port 30000 "${MAMBA_ARGS[@]}"
