# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/31345 (vLLM 0.13.0: "The 'draft_tensor_parallel_size' parameter of the Eagle3 draft model does not take effect" -- with "draft_tensor_parallel_size": 1 under tensor_parallel_size=4 the draft is still split four ways); the posted script with its missing commas and repeated model keyword repaired
from vllm import LLM, SamplingParams

prompts = ["Hello, my name is"]
sampling_params = SamplingParams(temperature=0.8, top_p=0.95)

llm = LLM(
    model="meta-llama/Llama-3.1-8B-Instruct",
    enforce_eager=True,
    tensor_parallel_size=4,
    gpu_memory_utilization=0.9,
    speculative_config={
        "method": "eagle3",
        "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B",
        "draft_tensor_parallel_size": 1,
        "num_speculative_tokens": 3,
    },
)

outputs = llm.generate(prompts, sampling_params)
for output in outputs:
    print(f"Prompt: {output.prompt!r}, Generated text: {output.outputs[0].text!r}")
