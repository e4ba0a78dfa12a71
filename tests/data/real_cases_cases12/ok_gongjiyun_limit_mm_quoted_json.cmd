# Reconstructed (not copied) after https://www.gongjiyun.com/docs/server/jojuw4rfdiepfxkchonctw0jnxe/c107wvm6eizpkvkhoxvcrmhtnjs (seen 2026-12-02): the page's own vLLM start command, the JSON in single quotes (its correct form).
vllm serve Qwen/Qwen3-VL-8B-Instruct-FP8 --max-model-len 32K --max-num-seqs 4 --limit-mm-per-prompt '{"image":4,"video":0}' --mm-processor-cache-gb 0
