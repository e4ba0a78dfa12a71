# Reconstructed (not copied) after https://github.com/zaidalyafeai/OpenTutorGym/blob/3d33d8e42f0cfd54a3daebb521a044c59aa95815/scripts/start_server.sh, seen 2026-12-04: `source .vllm/bin/activate`, then `vllm serve` taking the model as `$1` (also the served name) and the port as `$2`, unquoted, on continued lines (the last one tab-indented, no newline).
source .vllm/bin/activate
CUDA_VISIBLE_DEVICES=0,1 vllm serve \
        $1 \
        --host 0.0.0.0 \
        --port $2 \
        --gpu-memory-utilization 0.95 \
        --tensor-parallel-size 2 \
        --pipeline-parallel-size 1 \
        --max-model-len 4096 \
        --max-num-seqs 50 \
        --dtype=bfloat16 \
	--served-model-name $1