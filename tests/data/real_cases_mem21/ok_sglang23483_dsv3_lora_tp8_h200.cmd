# source: https://github.com/sgl-project/sglang/issues/23483 (2026-04-22) "[Question] what's the optimal setting for launching deepseek serving with moe-lora ?"
# "the script run normally": DeepSeek-V3-0324 with a rank-8 LoRA adapter on 8x H200 (SGLang main of April 2026). The part returned ends
# at `--disa`; that last word is left out. Model config: models/deepseek-v3.
deepseek_dir="/nvme_data/hf_models/deepseek-ai/DeepSeek-V3-0324"
lora_adapter_path="/nvme_data/chenxiaotao/repositories/crossing/output/lora_model/deepseek-v3-0324-0415-2"
max_lora_rank=8

SGLANG_ENABLE_JIT_DEEPGEMM=1 python3 -m sglang.launch_server \
    --model-path ${deepseek_dir} \
    --lora-paths "my-lora-adapter=${lora_adapter_path}" \
    --lora-backend triton \
    --max-lora-rank ${max_lora_rank} \
    --no-experts-shared-outer-loras \
    --max-loras-per-batch 4 \
    --disable-shared-experts-fusion \
    --context-length 16384 \
    --watchdog-timeout 1000 \
    --tp-size 8 \
    --trust-remote-code \
    --host 127.0.0.1 \
    --port 32001 \
    --page-size 64 \
    --cuda-graph-max-bs 128 \
    --disable-overlap-schedule \
    --mem-fraction-static 0.88
