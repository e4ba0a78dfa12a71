# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/5320 (2025-04-12, open), seen 2026-12-05: a compressed-tensors W8A8-Int8 checkpoint (reinforce20001/SakuraLLM.Sakura-14B-Qwen2.5-v1.0-W8A8-Int8-V2) stops at loading since 0.4.4.post2: that release's compressed-tensors support had only CompressedTensorsW8A8Fp8 (a maintainer: "SGLang now only supported CompressedTensorsW8A8Fp8 for compressed-tensors"; NameError CompressedTensorsW8A8Int8 until sglang PR#9642). The command as posted; the local folder is the report's.
python3 -m sglang.launch_server --model-path /models/SakuraLLM.Sakura-14B-Qwen2.5-v1.0-W8A8-Int8 --host 0.0.0.0 --port 30000 \
            --context-length 2048 \
      --enable-metrics
