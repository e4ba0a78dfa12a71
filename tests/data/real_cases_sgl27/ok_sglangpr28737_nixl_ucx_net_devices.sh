# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/28737 (2026-06-19, merged), seen 2026-12-04: a correct launch: the cookbook's NIXL variant with UCX_NET_DEVICES pinned on both servers (export UCX_NET_DEVICES=mlx5_0:1) and no --disaggregation-ib-device; model, addresses and ports are stand-ins.
export UCX_NET_DEVICES=mlx5_0:1
python3 -m sglang.launch_server --model-path poolside/Laguna-M.1 --tp 8 --trust-remote-code --disaggregation-mode prefill --disaggregation-transfer-backend nixl --host 0.0.0.0 --port 30000 &
python3 -m sglang_router.launch_router --pd-disaggregation --prefill http://10.0.0.1:30000 --decode http://10.0.0.2:30001 --host 0.0.0.0 --port 8000
