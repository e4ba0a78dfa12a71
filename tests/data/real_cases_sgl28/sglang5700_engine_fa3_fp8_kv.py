# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/5700 (2025-04-24, open), seen 2026-12-04: QwQ-32B with an fp8_e4m3 KV cache on the fa3 backend answers "hello" with nonsense (flashinfer is fine): FlashAttention 3's path lacked the q_descale. The Engine call as posted; the model path is the report's placeholder made concrete.
import sglang as sgl


def main():
    model_path = "Qwen/QwQ-32B"
    llm = sgl.Engine(
        model_path=model_path,
        trust_remote_code=True,
        tp_size=4,
        attention_backend="fa3",
        kv_cache_dtype="fp8_e4m3",
        quantization="w8a8_fp8",
    )
    prompts = ["hello"]
    print(llm.generate(prompts, {"temperature": 0}))


if __name__ == "__main__":
    main()
