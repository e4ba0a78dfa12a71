# Reconstructed (not copied) after https://github.com/honkliu/Jiuzhang/blob/02c4f658511c6dac59060d0a5d21f0ce7fe55dac/scripts/start-amd.sh, seen 2026-12-04: the ROCm `docker run` (kfd/dri devices, seccomp, video group, HSA/HIP variables) of the rocm/sgl-dev:20250701 image running DeepSeek-R1-0528 with tp 8, its output sent to a log.
docker run \
  --device=/dev/kfd \
  --device=/dev/dri \
  --security-opt seccomp=unconfined \
  --cap-add=SYS_PTRACE \
  --group-add video \
  --privileged \
  --shm-size 32g \
  --ipc=host \
  --name dskf \
  -p 30000:30000 \
  -v /mnt/nvme_raid0:/mnt/nvme_raid0 \
  -e HF_HOME=/mnt/nvme_raid0/hf_cache \
  -e HSA_NO_SCRATCH_RECLAIM=1 \
  -e GPU_FORCE_BLIT_COPY_SIZE=64 \
  -e DEBUG_HIP_BLOCK_SYN=1024 \
  rocm/sgl-dev:20250701 \
  python3 -m sglang.launch_server --model-path /mnt/resource_nvme/DeepSeek-R1-0528 --tp 8 --trust-remote-code --chunked-prefill-size 131072 --torch-compile-max-bs 256 --host 0.0.0.0 --port 30000 > /mnt/nvme_raid0/gitroot/output.log 2>&1
