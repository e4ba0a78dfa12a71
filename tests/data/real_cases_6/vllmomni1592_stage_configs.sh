# Reconstructed (not copied) after https://github.com/vllm-project/vllm-omni/issues/1592 (2026-03-02, description, vllm 0.16.0 with vllm-omni 0.14.0 from a source checkout), seen 2026-12-02: the script as posted, ending in a backslash; error "vllm: error: unrecognized arguments: --stage-configs-path ... --omni".
export CUDA_VISIBLE_DEVICES=1
vllm serve /all_nvme/nvme3/lk/model/llm/audio_model/TTS/Qwen3-TTS-12Hz-1.7B-CustomVoice/ \
    --stage-configs-path /all_nvme/nvme3/lk/model/server/vllm-omni/vllm_omni/model_executor/stage_configs/qwen3_tts.yaml \
    --port 10012 \
    --served-model-name Qwen3-TTS-12Hz-1.7B-CustomVoice \
    --trust-remote-code \
    --enforce-eager \
    --omni \

