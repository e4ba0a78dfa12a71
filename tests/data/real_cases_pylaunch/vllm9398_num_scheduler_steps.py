# https://github.com/vllm-project/vllm/issues/9398 -- the report's call (vllm==0.6.3): `TypeError: EngineArgs.__init__() got an unexpected keyword argument 'num_scheduler_steps'`; the reporter's cause: an unclean installation (another vLLM than 0.6.3 was imported). `from vllm import LLM` added (the traceback is vllm/entrypoints/llm.py), `checkpoint` is not in the report.
from vllm import LLM

model = LLM(
        model=checkpoint,
        trust_remote_code=True,
        gpu_memory_utilization=0.3,
        dtype="bfloat16",
        enforce_eager=True,
        num_scheduler_steps=8,
    )
