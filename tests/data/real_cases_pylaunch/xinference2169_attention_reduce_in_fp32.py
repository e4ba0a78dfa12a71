# https://github.com/xorbitsai/inference/issues/2169 -- SGLang 0.2.14 under Xinference 0.14.3: "SGLang: unexpected keyword argument 'attention_reduce_in_fp32'". The keywords are the model config the worker log prints; Xinference hands them to SGLang's Runtime with the model path (`sgl.Runtime(model_path=..., **config)`), rebuilt here; the path is not in the report.
import sglang as sgl

config = {'trust_remote_code': True, 'context_length': 32000, 'tokenizer_mode': 'auto', 'tp_size': 2, 'mem_fraction_static': 0.87, 'log_level': 'info', 'attention_reduce_in_fp32': False}
engine = sgl.Runtime(model_path=model_path, **config)
