# https://github.com/vllm-project/vllm-ascend/issues/2238 -- correct: the report's first container (vllm 0.9.2 + vllm-ascend 0.9.2 on 910B, 2025-08), which starts; its $IMAGE set as vllm-ascend's docs set it (export IMAGE=...), the tag the report names
export IMAGE=quay.io/ascend/vllm-ascend:v0.9.2rc1
docker run --restart=always \
--name vllm-1 \
--device /dev/davinci4 \
--device /dev/davinci5 \
--device /dev/davinci6 \
--device /dev/davinci7 \
--device /dev/davinci_manager \
--device /dev/devmm_svm \
--device /dev/hisi_hdc \
-v /usr/local/dcmi:/usr/local/dcmi \
-v /usr/local/bin/npu-smi:/usr/local/bin/npu-smi \
-v /usr/local/Ascend/driver/lib64/:/usr/local/Ascend/driver/lib64/ \
-v /usr/local/Ascend/driver/version.info:/usr/local/Ascend/driver/version.info \
-v /etc/ascend_install.info:/etc/ascend_install.info \
-v /root/.cache:/root/.cache \
-v /data/models/Qwen2.5-VL-7B-Instruct:/data/Qwen2.5-VL-7B-Instruct \
-p 8111:8000 \
-e PYTORCH_NPU_ALLOC_CONF=max_split_size_mb:256 \
-it $IMAGE \
vllm serve /data/Qwen2.5-VL-7B-Instruct --served-model-name Qwen2.5-VL-7B-Instruct --tensor-parallel-size 4
