# Reconstructed (not copied) after https://github.com/zai-org/GLM-V/issues/107 (2025-08-11, comment by wittech), seen 2026-12-02: the launch; it stops with "The checkpoint you are trying to load has model type `glm4v_moe` but Transformers does not recognize this architecture" (the sentence's closing Chinese punctuation dropped).
CUDA_VISIBLE_DEVICES=4,5,6,7 \
vllm serve /data/hr-mirror/GLM-4.5V-FP8 \
     --tensor-parallel-size 4 \
     --tool-call-parser glm45 \
     --reasoning-parser glm45 \
     --enable-auto-tool-choice \
     --served-model-name glm-4.5v \
     --allowed-local-media-path / \
     --media-io-kwargs '{"video": {"num_frames": -1}}'
