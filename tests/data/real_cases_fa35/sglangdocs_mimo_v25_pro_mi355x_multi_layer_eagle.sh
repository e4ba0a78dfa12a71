# Reconstructed (not copied) after https://github.com/sgl-project/sglang/blob/f40402da9572f84d89c39256bb7ef82565d8a15d/docs/basic_usage/mimo_v25_pro.md
# (2026, "MiMo-V2.5-Pro Usage on AMD Instinct MI355X": step 1 starts the vendor's container with a bash entrypoint,
# step 2 runs inside it: SGLANG_ENABLE_SPEC_V2=1 and EAGLE with `--enable-multi-layer-eagle`; the curl test dropped)
docker run -d -it \
    --ipc=host \
    --network=host \
    --privileged \
    --cap-add=CAP_SYS_ADMIN \
    --device=/dev/kfd \
    --device=/dev/dri \
    --device=/dev/mem \
    --group-add video \
    --cap-add=SYS_PTRACE \
    --security-opt seccomp=unconfined \
    --shm-size 32G \
    --entrypoint "/bin/bash" \
    --name mimov25pro \
    aigmkt/mimo-v2.5-pro-sglang:latest

export SGLANG_ENABLE_SPEC_V2=1

python3 -m sglang.launch_server \
  --model-path XiaomiMiMo/MiMo-V2.5-Pro \
  --tp-size 8 \
  --decode-log-interval 1 \
  --host 0.0.0.0 \
  --port 30000 \
  --trust-remote-code \
  --disable-radix-cache \
  --watchdog-timeout 1000000 \
  --mem-fraction-static 0.8 \
  --chunked-prefill-size 131072 \
  --max-running-requests 64 \
  --speculative-algorithm EAGLE \
  --speculative-num-steps 3 \
  --speculative-eagle-topk 1 \
  --speculative-num-draft-tokens 4 \
  --enable-multi-layer-eagle \
  --attention-backend triton
