# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/19104 (comment by an SGLang maintainer, 2026-02-21), seen 2026-12-02: the array of server arguments and the `sglang serve` line the maintainer gives as the working diffusion launch.
SERVER_ARGS=(
  --model-path black-forest-labs/FLUX.2-klein-4B
  --text-encoder-cpu-offload
  --pin-cpu-memory
  --num-gpus 1
  --ulysses-degree=1
  --ring-degree=1
  --port 30010
)

sglang serve "${SERVER_ARGS[@]}"
