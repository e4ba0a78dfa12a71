# Reconstructed (not copied) after https://github.com/dbrugger946/rh-ibm-ai-various/blob/b44eb09cc14ccc944ffd09399620fd011d32cc45/vllm-dev/docker/run-vllm-cpu1.sh, seen 2026-12-04: `docker run` of vLLM's CPU release image from public ECR (v0.9.0) with VLLM_CPU_* variables, a line indented with a tab among blanks, `--model=... --dtype=bfloat16 ` ending in a blank and no newline (kept: the whole command)
docker run --rm \
             --privileged=true \
             --shm-size=4g \
	         -v ~/.cache/huggingface:/root/.cache/huggingface \
             -p 8000:8000 \
             -e VLLM_CPU_KVCACHE_SPACE=30  \
             -e VLLM_CPU_OMP_THREADS_BIND=6 \
             public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo:v0.9.0 \
             --model=ibm-granite/granite-3.3-2b-instruct \
             --dtype=bfloat16 