# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/25491 (2026-05-16), seen 2026-12-04: a disaggregated decode server for GLM-5.1-FP8 (EP 32, DP attention, MTP, --enable-single-batch-overlap) that reached ready on lmsysorg/sglang:v0.5.11 crashes on v0.5.12 in DeepGEMM's masked grouped GEMM; dropping --enable-single-batch-overlap avoids it. The report's flags in a docker run; node address, ports and counts are stand-ins.
docker run --gpus all --network host --ipc host lmsysorg/sglang:v0.5.12 \
  python3 -m sglang.launch_server \
    --model-path zai-org/GLM-5.1-FP8 \
    --disaggregation-mode decode \
    --tp 32 --dp 32 --ep 32 \
    --enable-dp-attention \
    --moe-a2a-backend deepep \
    --enable-single-batch-overlap \
    --speculative-algorithm EAGLE \
    --speculative-num-steps 1 --speculative-eagle-topk 1 --speculative-num-draft-tokens 2 \
    --nnodes 4 --node-rank 0 --dist-init-addr 10.0.0.1:5000 \
    --trust-remote-code --host 0.0.0.0 --port 30000
