# Reconstructed (not copied) after https://github.com/Hiroaki-Masuzawa/llm_vlm_memo/blob/2b2d5abd275beebe9a88977e84c12e73efa7ac9a/run_vllm.sh, seen 2026-12-04: a `while`/`case` option parser that picks a model, appends `--max_model_len`/`--gpu_memory_utilization` to an OPTIONS string, switches the image to a locally built CPU image with `-G`, then `docker run -it --rm ${GPUOPTION}\` (no blank before the backslash) of vllm/vllm-openai:latest with `--model ${MODEL} --served-model-name ${SERVEDMODEL} ${OPTIONS}` (kept: the structure and the values)
SCRIPT_DIR=$(cd $(dirname $0); pwd)
CACHEDIR=${SCRIPT_DIR}/vllm_root_cache
MODEL=Qwen/Qwen2-VL-2B-Instruct
SERVEDMODEL=Qwen2-VL-2B-Instruct
GPUOPTION="--gpus all"
IMAGE_NAME=vllm/vllm-openai:latest
OPTIONS=""

while [[ $# -gt 0 ]]; do
    case $1 in
        -m|--model)
            case $2 in
                qwen2)
                    MODEL=Qwen/Qwen2-VL-2B-Instruct
                    SERVEDMODEL=Qwen2-VL-2B-Instruct
                    ;;
                qwen2.5)
                    MODEL=Qwen/Qwen2.5-VL-3B-Instruct
                    SERVEDMODEL=Qwen2.5-VL-3B-Instruct
                    OPTIONS+=" --max_model_len 87360"   ## VRAM 16GB
                    ;;
                llava-1.5)
                    MODEL=llava-hf/llava-1.5-7b-hf
                    SERVEDMODEL=llava-1.5-7b-hf
                    OPTIONS+=" --chat-template /vllm/examples/template_llava.jinja --gpu_memory_utilization 0.95 --max_model_len 1024"
                    ;;
                *)
                    echo "Unknown model $2"
                    exit 1
                    ;;
            esac
            shift
            shift
            ;;
        -G|--no-gpu)
            IMAGE_NAME="vllm-cpu-env"
            GPUOPTION=" "
            shift
            ;;
        --)
            shift
            break
            ;;
        -*|--*)
            echo "Unknown option $1"
            exit 1
            ;;
    esac
done

set -x
docker run -it --rm \
  ${GPUOPTION}\
  --ipc=host --network=host \
  --name vllm_api_server \
  -v ${CACHEDIR}:/root/.cache \
  -v ${SCRIPT_DIR}/vllm:/vllm \
  ${IMAGE_NAME} \
  --model ${MODEL} --served-model-name ${SERVEDMODEL} ${OPTIONS}
