# Reconstructed (not copied) after https://github.com/verl-project/verl/pull/7288 (2026-08-06), seen 2026-12-04: verl forwards PEFT's "all-linear" into ServerArgs.lora_target_modules; SGLang's check_lora_server_args turns the bare string into set("all-linear") (its characters), and the LoRA pool dies with "NotImplementedError: get_hidden_dim not implemented for i". SGLang's own spelling is "all". An engine started the way verl's server does; model and rank are stand-ins.
import sglang as sgl

if __name__ == "__main__":
    llm = sgl.Engine(
        model_path="Qwen/Qwen2.5-7B-Instruct",
        enable_lora=True,
        max_lora_rank=64,
        lora_target_modules="all-linear",
        max_loras_per_batch=1,
    )
    print(llm.generate("Hello", {"max_new_tokens": 8}))
