# https://github.com/vllm-project/vllm/issues/5397 -- the report's reproduction, whole (vLLM 0.4.2): `TypeError: __init__() got an unexpected keyword argument 'lora_dtype'`; the cause (the report's fix): vLLM 0.4.2's EngineArgs declared `lora_dtype = 'auto'` without a type annotation, so it was no dataclass field.
import vllm
vllm.EngineArgs(model='a', lora_dtype='float16')
