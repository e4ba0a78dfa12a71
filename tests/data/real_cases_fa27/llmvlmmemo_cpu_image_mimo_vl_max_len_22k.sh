# Reconstructed (not copied) after https://github.com/Hiroaki-Masuzawa/llm_vlm_memo/blob/2f95d11e969fc675d3b544221cb341466ff9b973/individual_shells/run_mimo_vl_7b.sh, seen 2026-12-04: `docker run` of a locally built CPU image (vllm-cpu-env) with host networking and MiMo-VL-7B-RL-2508, `--max-model-len 22k` (a human-readable length) (kept: the whole command)
SCRIPT_DIR=$(cd $(dirname $0); pwd)
CACHEDIR=${SCRIPT_DIR}/../vllm_root_cache

docker run --rm --network=host \
    -v ${CACHEDIR}:/root/.cache \
    --ipc=host \
    -v ${SCRIPT_DIR}/../vllm:/vllm \
    vllm-cpu-env \
    --model 'XiaomiMiMo/MiMo-VL-7B-RL-2508' --max-model-len 22k
