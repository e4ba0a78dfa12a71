# Reconstructed (not copied) after https://github.com/TechPreacher/dgx-spark-vllm-cluster/blob/65779bd26a08f35169b1318ddd8d368640cbb070/nemotron/cluster-env.sh
# Sourced before the Ray cluster's bring-up on both nodes (the Makefile's head/worker targets); kept: its exports.
export VLLM_IMAGE=local/vllm-ray:26.05.post1

export VLLM_NVFP4_GEMM_BACKEND=marlin
export VLLM_FLASHINFER_ALLREDUCE_BACKEND=trtllm
export VLLM_USE_FLASHINFER_MOE_FP4=0
export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1

export VLLM_FORWARD_VARS="VLLM_NVFP4_GEMM_BACKEND VLLM_FLASHINFER_ALLREDUCE_BACKEND VLLM_USE_FLASHINFER_MOE_FP4 VLLM_ALLOW_LONG_MAX_MODEL_LEN"
