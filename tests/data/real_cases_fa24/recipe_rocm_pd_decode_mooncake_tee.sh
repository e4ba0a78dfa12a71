# Reconstructed (not copied) after https://github.com/alexsun07/recipe/blob/b91ca9bada80894f75c721769ac589db04c806e2/sglang_pd_disagg_mooncake/start_decode.sh, seen 2026-12-04: no shebang, `set -ex`, SGLANG_USE_AITER and two network exports, a DeepSeek-R1-0528 decode server on ROCm (`--disaggregation-mode decode`, ionic IB devices, `--prefill-round-robin-balance`, `--load-balance-method round_robin`, mooncake), `--host $SGLANG_HOST_IP`, piped to `tee`.
set -ex

export SGLANG_USE_AITER=1

# network settings of the node: adjust to yours
export GLOO_SOCKET_IFNAME=enp193s0f1np1
export SGLANG_HOST_IP=10.2.224.32


python -m sglang.launch_server \
  --model-path deepseek-ai/DeepSeek-R1-0528 \
  --tp-size 8 \
  --disaggregation-mode decode \
  --disaggregation-ib-device ionic_0,ionic_1,ionic_2,ionic_3,ionic_4,ionic_5,ionic_6,ionic_7 \
  --prefill-round-robin-balance \
  --load-balance-method round_robin \
  --host $SGLANG_HOST_IP --port 30003 \
  --disaggregation-transfer-backend mooncake \
  --mem-fraction-static 0.5 \
  --disable-radix-cache \
  --trust-remote-code \
  2>&1 | tee log_decode.log
