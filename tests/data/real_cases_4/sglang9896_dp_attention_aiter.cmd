# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/9896, seen 2026-12-02: the launch on 8x MI300X (SGLang 0.5.0rc2) whose DP attention raises a tensor split error under load.
SGLANG_USE_AITER=1 \
python3 -m sglang.launch_server \
	--tool-call-parser deepseekv3 \
	--trust-remote-code \
	--model-path /share/deepseek-r1 \
	--attention-backend aiter \
	--disable-radix-cache \
	--disable-cuda-graph \
	--tp-size 8 \
	--enable-dp-attention \
	--dp-size 8
