# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/33501 (2026-08-04, description; the prompt shows a conda env named sglang5.16), seen 2026-12-02: the command; error "error: unrecognized arguments: --model-variant fl2va"; a maintainer asks whether the pre-release is installed.
sglang serve \
  --model-type diffusion \
  --model-path MiniMaxAI/MiniMax-H3 \
  --num-gpus 8 \
  --ulysses-degree 8 \
  --performance-mode speed \
  --host 0.0.0.0 \
  --port 30010 \
  --model-variant fl2va
