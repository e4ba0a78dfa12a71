"""argtrace: what did the LLM inference server actually see?

Follows every setting of an SGLang or vLLM launch through the layers it crosses (transport, shell, process,
parser, resolution, log, live, memory) and reports, per setting, what each layer saw and who changed it.
"""

__version__ = "0.1.0"
