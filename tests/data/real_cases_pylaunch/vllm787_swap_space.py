# https://github.com/vllm-project/vllm/issues/787 -- the report's call (vLLM 0.1.3): the run aborts later with "Aborted due to the lack of CPU swap space" (n=50 sequences per prompt); the call itself is correct. `from vllm import LLM, SamplingParams` added; `model_path` and `prompts` are not in the report.
from vllm import LLM, SamplingParams

llm = LLM(model=model_path, dtype='bfloat16')
sampling_params = SamplingParams(n=50, max_tokens=600, temperature=0.2, top_p=0.95)
results = llm.generate(prompts, sampling_params, use_tqdm=True)
