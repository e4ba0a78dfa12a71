# Reconstructed (not copied) after https://github.com/vllm-project/vllm-ascend/blob/fcea657e9a802733d1973edbac84ccaa9cb67af3/examples/disaggregated_prefill_v1/run_server.sh, seen 2026-12-04: the vLLM Ascend plugin's disaggregated-prefill (v1) decode server example: interface exports, a rank-table path placeholder, `vllm serve model_path` with `--tensor-parallel-size 1\` (no blank before the backslash), `---max-num-batched-tokens 2000` (three dashes), a multi-line LLMDataDistCMgrConnector `--kv-transfer-config` on the line after its flag, and a last line `'{"enable_graph_mode": "True"}'\` ending in a backslash with no newline after it (kept: the whole file)
export HCCL_IF_IP=141.61.39.117
export GLOO_SOCKET_IFNAME="enp48s3u1u1"
export TP_SOCKET_IFNAME="enp48s3u1u1"
export HCCL_SOCKET_IFNAME="enp48s3u1u1"
export DISAGGREGATED_PREFILL_RANK_TABLE_PATH=path-to-rank-table

export OMP_PROC_BIND=false
export OMP_NUM_THREADS=10

export VLLM_USE_V1=1

vllm serve model_path \
  --host 0.0.0.0 \
  --port 20002 \
  --tensor-parallel-size 1\
  --seed 1024 \
  --served-model-name dsv3 \
  --max-model-len 2000  \
  ---max-num-batched-tokens 2000  \
  --trust-remote-code \
  --gpu-memory-utilization 0.9  \
  --kv-transfer-config  \
  '{"kv_connector": "LLMDataDistCMgrConnector",
  "kv_buffer_device": "npu",
  "kv_role": "kv_consumer",
  "kv_parallel_size": 1,
  "kv_port": "20001",
  "engine_id": 0,
  "kv_connector_module_path": "vllm_ascend.distributed.llmdatadist_connector_v1_a3"
  }'  \
  --additional-config \
  '{"enable_graph_mode": "True"}'\