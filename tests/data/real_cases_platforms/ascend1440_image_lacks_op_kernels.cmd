# https://github.com/vllm-project/vllm-ascend/issues/1440 -- vllm-ascend v0.9.1rc1 image, 2025-06-27: "Get path and read binary_info_config.json failed, please check if the opp_kernel package is installed!" (the CANN kernels package missing on the host/image, not a launch setting)
docker run --rm \
--name vllm-ascend \
--device /dev/davinci7 \
--device /dev/davinci_manager \
--device /dev/devmm_svm \
--device /dev/hisi_hdc \
-v /usr/local/dcmi:/usr/local/dcmi \
-v /usr/local/bin/npu-smi:/usr/local/bin/npu-smi \
-v /usr/local/Ascend/driver/lib64/:/usr/local/Ascend/driver/lib64/ \
-v /usr/local/Ascend/driver/version.info:/usr/local/Ascend/driver/version.info \
-v /etc/ascend_install.info:/etc/ascend_install.info \
-v /home/models:/models:ro \
-p 8000:8000 \
-e TRANSFORMERS_OFFLINE=1 \
-e PYTORCH_NPU_ALLOC_CONF=max_split_size_mb:256 \
-e VLLM_USE_V1=1 \
-it quay.io/ascend/vllm-ascend:v0.9.1rc1 \
vllm serve /models/Qwen2.5-7B-Instruct --max_model_len 26240
