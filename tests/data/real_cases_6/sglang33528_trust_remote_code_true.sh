# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/33528 (2026-08-04, description, 8x H800), seen 2026-12-02: the reproduction; the error is a screenshot ("both sglang and diffusers have compatibility issues with minimaxh3").
CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 \
sglang serve \
  --model-type diffusion \
  --model-path /workspace/vlm_dataset/MiniMax-H3 \
    --pipeline-class-name MiniMaxH3Pipeline \
  --model-variant fl2va \
  --num-gpus 8 \
  --tp-size 2 \
  --ulysses-degree 4 \
  --encoder-parallel auto \
  --host 0.0.0.0 \
  --port 30010 \
  --trust-remote-code true
