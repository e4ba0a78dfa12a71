# Reconstructed (not copied) after https://github.com/verl-project/verl/pull/1068 (2025-04-14), seen 2026-12-04: verl passed its rollout load_format ('dummy_dtensor', a vLLM-side name) to SGLang's Engine: "ValueError: 'dummy_dtensor' is not a valid LoadFormat"; the fix maps every dummy* to 'dummy'. The Engine call reduced to the keyword at issue; model and sizes are stand-ins.
import sglang as sgl

engine = sgl.Engine(
    model_path="Qwen/Qwen2.5-7B-Instruct",
    tp_size=2,
    enable_memory_saver=True,
    load_format="dummy_dtensor",
)
