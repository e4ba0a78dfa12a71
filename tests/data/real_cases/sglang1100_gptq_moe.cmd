# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/1100, seen 2026-12-02: the command line as the report shows it (no release named).
python -m sglang.launch_server --quantization gptq --model-path qwen/Qwen2-57B-A14B-Instruct-GPTQ-Int4 --port 8000 --disable-flashinfer-sampling --disable-flashinfer --tp 2 --enable-p2p-check
