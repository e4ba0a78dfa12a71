"""The model class config.json names against what the launch asks of it (RS047-RS050;
``layers/model_caps.py``), from the per-release model table ``scripts/gen_model_caps.py`` generates from the
wheels (``frameworks/data/model_caps``): an architecture the release does not register, LoRA, pipeline
parallelism and multimodal limits on a class that does not implement them."""

from __future__ import annotations

from argtrace.rules import Example, Rule


def _config(arch: str, model_type: str) -> str:
    return (
        f'{{"architectures": ["{arch}"], "model_type": "{model_type}", "hidden_size": 2048, '
        '"num_hidden_layers": 24, "num_attention_heads": 16, "num_key_value_heads": 16, '
        '"max_position_embeddings": 4096, "vocab_size": 32000}\n'
    )


def _static(command: str, version: str, arch: str, model_type: str) -> Example:
    return Example(
        argv=["check", "--no-resolve", "--model-config", "m", "--framework-version", version, "-c", command],
        files={"m/config.json": _config(arch, model_type)},
    )


_EXCEPTIONS = (
    "Said only when config.json is readable (--model-config, a local model directory, the Hugging Face "
    "cache) and names its architectures, the class's flags were readable in the wheel, and neither "
    "--model-impl nor --hf-overrides may change the class. A named release the table does not cover is read "
    "from the newest covered one before it, and with no release known the analysed one is read: then at most "
    "a warning that says so (and, when the analysed release is fine, a note naming the covered releases that "
    "refuse)."
)

RS047 = Rule(
    code="RS047",
    layer="resolution",
    severity="error",
    title="The release registers no model class for config.json's architectures",
    basis="static",
    rationale=(
        "vLLM and SGLang pick the model class from config.json's `architectures` in their registry "
        "(vLLM model_executor/models/registry.py, SGLang srt/models/*.py EntryClass). An architecture the "
        "release does not register is tried through the Transformers backend where the release has one "
        "(vLLM 0.7 on, SGLang's resolve_transformers_arch), which works only if the installed transformers "
        "has a compatible class; otherwise the registry raises 'Model architectures [...] are not supported "
        "for now' at start-up (or 'was supported in vLLM until vX' for one it removed). The model table is "
        "generated from each release's wheel."
    ),
    fix="use a release that registers the architecture (the finding names the first one)",
    example=_static("vllm serve /m", "0.6.6.post1", "Qwen3ForCausalLM", "qwen3"),
    correct=_static("vllm serve /m", "0.6.6.post1", "Qwen2ForCausalLM", "qwen2"),
    exceptions=_EXCEPTIONS + " With a Transformers fallback the finding is a note (whether the installed "
    "transformers has the class is not in the launch), unless none of the release's Transformers backend "
    "classes can do what the launch asks either (vLLM 0.7.3-0.9.2's is text-only: --limit-mm-per-prompt).",
)

RS048 = Rule(
    code="RS048",
    layer="resolution",
    severity="error",
    title="--enable-lora on a model class without LoRA support",
    basis="static",
    rationale=(
        "vLLM loads LoRA only into model classes that implement SupportsLoRA: V1's "
        "LoRAModelRunnerMixin.load_lora_model raises 'X does not support LoRA yet.' when the model is "
        "loaded (V0's GPUModelRunnerBase.load_model asserts the same), so the server never starts. Which "
        "classes implement it changes per release; the table is read from each wheel's model classes "
        "(their MRO's supports_lora flag)."
    ),
    fix="remove --enable-lora and --lora-modules, use a release whose class supports LoRA, or merge the "
    "adapter into the weights",
    example=_static("vllm serve /m --enable-lora", "0.33.0", "MambaForCausalLM", "mamba"),
    correct=_static("vllm serve /m --enable-lora", "0.33.0", "LlamaForCausalLM", "llama"),
    exceptions=_EXCEPTIONS + " SGLang checks no per-class LoRA interface: nothing is said for it.",
)

RS049 = Rule(
    code="RS049",
    layer="resolution",
    severity="error",
    title="Pipeline parallelism on a model class without it",
    basis="static",
    rationale=(
        "vLLM's ModelConfig.verify_with_parallel_config raises 'Pipeline parallelism is not supported for "
        "this model. Supported models implement the `SupportsPP` interface.' at start-up when "
        "--pipeline-parallel-size is above 1 and the class does not implement SupportsPP in that release "
        "(read from each wheel's model classes). SGLang's ModelRunner reads the model's forward() with "
        "inspect.signature and asserts 'Pipeline Parallel is not compatible with this model.' when "
        "--pp-size is above 1 and it takes no pp_proxy_tensors (0.5.23 model_executor/model_runner.py:"
        "508-516), after the weights are loaded (sglang PR#25284: Gemma4 with --pp-size 2); which classes "
        "take it is read from the wheels of the releases the table was generated with."
    ),
    fix="--pipeline-parallel-size 1 (SGLang: --pp-size 1), and --tensor-parallel-size for the GPUs",
    example=_static("vllm serve /m --pipeline-parallel-size 2", "0.33.0", "BertModel", "bert"),
    correct=_static("vllm serve /m --pipeline-parallel-size 2", "0.33.0", "LlamaForCausalLM", "llama"),
    exceptions=_EXCEPTIONS + " SGLang checks no per-class pipeline-parallel interface: nothing is said.",
)

RS050 = Rule(
    code="RS050",
    layer="resolution",
    severity="error",
    title="--limit-mm-per-prompt on a model class that takes no multimodal input",
    basis="static",
    rationale=(
        "vLLM 0.6.3-0.9.2's ModelConfig._init_multimodal_config raises '`limit_mm_per_prompt` is only "
        "supported for multimodal models.' at start-up for a class that does not implement "
        "SupportsMultiModal; later releases build no multimodal config for it and drop the limits without a "
        "word (a note). The class's flags are read from each wheel."
    ),
    fix="remove --limit-mm-per-prompt, or serve the multimodal checkpoint",
    example=Example(
        argv=[
            "check",
            "--no-resolve",
            "--model-config",
            "m",
            "--framework-version",
            "0.9.2",
            "-c",
            "vllm serve /m --limit-mm-per-prompt image=2",
        ],
        files={"m/config.json": _config("LlamaForCausalLM", "llama")},
    ),
    correct=Example(
        argv=[
            "check",
            "--no-resolve",
            "--model-config",
            "m",
            "--framework-version",
            "0.9.2",
            "-c",
            "vllm serve /m --limit-mm-per-prompt image=2",
        ],
        files={"m/config.json": _config("Qwen2VLForConditionalGeneration", "qwen2_vl")},
    ),
    exceptions=_EXCEPTIONS,
)
