# Reconstructed (not copied) after https://github.com/vllm-project/recipes/blob/c033a835ef28b28a857f199ac43044dd4cf06077/OpenAI/GPT-OSS.md
# (2026-05, "Recipe for NVIDIA Blackwell & Hopper Hardware": `launch_server.sh`, the config file chosen by the GPU's
# compute capability, then `vllm serve --config ${YAML_CONFIG}` in the background; the two config files beside it)
# Set up a few environment variables for better performance for Blackwell architecture.
COMPUTE_CAPABILITY=$(nvidia-smi -i 0 --query-gpu=compute_cap --format=csv,noheader)
if [ "$COMPUTE_CAPABILITY" = "10.0" ]; then
    # Use FlashInfer MXFP4+MXFP8 MoE
    export VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1
    # Select the config file for Blackwell architecture.
    YAML_CONFIG="GPT-OSS_Blackwell.yaml"
else
    # Select the config file for Hopper architecture.
    YAML_CONFIG="GPT-OSS_Hopper.yaml"
    # export VLLM_MXFP4_USE_MARLIN=1
fi

# Launch the vLLM server
vllm serve openai/gpt-oss-120b \
  --config ${YAML_CONFIG} \
  --tensor-parallel-size 1 &
