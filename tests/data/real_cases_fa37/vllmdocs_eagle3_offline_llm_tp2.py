# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/0b896b16e260be84c17ca58ea18378622583356f/docs/features/spec_decode/eagle.md
# vLLM's EAGLE page, its EAGLE-3 example as a program: an offline LLM (Llama-3-8B-Instruct, TP2) with the
# RedHatAI EAGLE-3 speculator as draft at draft TP2 and two speculative tokens; kept as the page writes it.
from vllm import LLM, SamplingParams

prompts = ["The future of AI is"]
sampling_params = SamplingParams(temperature=0.8, top_p=0.95)

llm = LLM(
    model="meta-llama/Meta-Llama-3-8B-Instruct",
    tensor_parallel_size=2,
    speculative_config={
        "model": "RedHatAI/Llama-3.1-8B-Instruct-speculator.eagle3",
        "draft_tensor_parallel_size": 2,
        "num_speculative_tokens": 2,
        "method": "eagle",
    },
)

outputs = llm.generate(prompts, sampling_params)

for output in outputs:
    print(f"Prompt: {output.prompt!r}, Generated text: {output.outputs[0].text!r}")
