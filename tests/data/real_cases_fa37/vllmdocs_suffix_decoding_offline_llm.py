# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/0b896b16e260be84c17ca58ea18378622583356f/docs/features/spec_decode/suffix.md
# vLLM's suffix decoding page as a program: an offline LLM (OPT-6.7B) whose speculative_config names the
# "suffix" method with at most 32 speculative tokens (Arctic Inference installed beside it); kept as written.
from vllm import LLM, SamplingParams

prompts = ["The future of AI is"]
sampling_params = SamplingParams(temperature=0.8, top_p=0.95)

llm = LLM(
    model="facebook/opt-6.7b",
    tensor_parallel_size=1,
    speculative_config={
        "method": "suffix",
        "num_speculative_tokens": 32,
    },
)
outputs = llm.generate(prompts, sampling_params)

for output in outputs:
    print(f"Prompt: {output.prompt!r}, Generated text: {output.outputs[0].text!r}")
