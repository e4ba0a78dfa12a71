# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/302, seen 2026-12-02: the command line as the report shows it (no release named).
python3 -m sglang.launch_server --model-path TheBloke/Mistral-7B-v0.1-GPTQ:gptq-4bit-32g-actorder_True --port 42069 --host 0.0.0.0
