# Reconstructed (not copied) after https://docs.gpustack.ai/latest/performance-lab/gpt-oss-120b/h100
# (GPUStack performance lab, "Optimizing GPT-OSS-120B Throughput on NVIDIA H100 GPUs": the recommended serving
# command; the page's engine version is vLLM v0.10.2)
vllm serve openai/gpt-oss-120b --async-scheduling -tp 2
