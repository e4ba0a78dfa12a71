case "$1" in
  qwen) MODEL_PATH=/models/Qwen2.5-7B-Instruct ;;
  llama) MODEL_PATH=/models/Llama-3.1-8B ;;
esac
export HF_HUB_OFFLINE=1
