# Reconstructed (not copied) after https://github.com/vllm-project/vllm-gaudi/blob/575b1c562692879c5172f87b53ca9d53b17c3db1/server_q3_480.sh, seen 2026-12-04: the vLLM Gaudi plugin serving Qwen3-VL-32B FP8 from a snapshot directory: no shebang, bucket exports with lines of one blank between them, commented alternatives, the command indented under comment lines, `--trust-remote-code` twice, the abbreviation `--gpu-memory-util 0.75`, `--max_num_batched_tokens`, `--limit-mm-per-prompt` and `--mm-processor-kwargs` JSON, `| tee`, a last line of one blank (kept: the structure, a part of the buckets and every flag)
#export PT_HPU_SDPA_QKV_SLICE_MODE_FWD=true
export VLLM_PROMPT_BS_BUCKET_MIN=1
export VLLM_PROMPT_BS_BUCKET_MAX=1
export VLLM_PROMPT_CTX_BUCKET_MIN=0
export VLLM_PROMPT_CTX_BUCKET_MAX=24
 
export VLLM_DECODE_BS_BUCKET_MAX=64
#export VLLM_PROMPT_SEQ_BUCKET_MIN=1024
 
export VLLM_PROMPT_SEQ_BUCKET_MIN=5120
export VLLM_PROMPT_SEQ_BUCKET_MAX=20480
export VLLM_DECODE_BLOCK_BUCKET_MAX=1152
 
export VLLM_LOGGING_LEVEL=DEBUG
export VLLM_DELAYED_SAMPLING=true
 
export VLLM_EXPONENTIAL_BUCKETING=False
export PT_HPU_ENABLE_LAZY_COLLECTIVES=true
export VLLM_SKIP_WARMUP=false
export VLLM_GRAPH_RESERVED_MEM=0.4
export VLLM_CONTIGUOUS_PA=true
export VLLM_DEFRAG=true
# export TORCH_LOGS="+dynamo"

# export VLLM_PROFILER_ENABLED=1
ModelName=/root/.cache/huggingface/hub/models--Qwen--Qwen3-VL-32B-Instruct-FP8/snapshots/4bf2c2f39c37c0fede78bede4056e1f18cdf8109/
#ModelName=Qwen/Qwen3-VL-32B-Thinking-FP8
MaxModelLen=32768
    # safest single-shot guess for your workload
  # VLLM_PROFILE_PROMPT=1,1024,0 
  python3 -m vllm.entrypoints.openai.api_server --host localhost --port 12346 --model $ModelName --trust-remote-code --tensor-parallel-size 1 \
    --max-model-len $MaxModelLen \
    --trust-remote-code \
    --gpu-memory-util 0.75 --max_num_batched_tokens 32768 --limit-mm-per-prompt '{"image": {"count": 20, "width": 864, "height": 480}}' \
    --mm-processor-kwargs '{"size": {"shortest_edge": 65536, "longest_edge": 1048576}}' 2>&1 | tee log_q3_remove.txt
 
 
