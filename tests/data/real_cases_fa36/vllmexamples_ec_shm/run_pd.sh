# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/2f09c9498014c7f65433c2683f1810743f088619/examples/online_serving/disaggregated_encoder_shm/run_pd.sh
# The same example's prefill-decode instance: an ec_consumer whose connector is loaded from
# ec_connector_module_path; kept as written.
unset ftp_proxy
unset https_proxy
unset http_proxy
EC_SHARED_STORAGE_PATH="${EC_SHARED_STORAGE_PATH:-/user/ec_cache}"

CUDA_VISIBLE_DEVICES=0 vllm serve "/model_path" \
    --gpu-memory-utilization 0.7 \
    --port "33001" \
    --enforce-eager \
    --enable-request-id-headers \
    --served-model-name model_name \
    --max-model-len 32768  \
    --max-num-seqs 128 \
    --ec-transfer-config '{
      "ec_connector": "ECExampleConnectorSHM",
      "ec_role": "ec_consumer",
      "ec_ip": "127.0.0.1",
      "ec_connector_module_path":"vllm.distributed.ec_transfer.ec_connector.example_connector_shm",
      "ec_connector_extra_config": {
            "shared_storage_path": "'"$EC_SHARED_STORAGE_PATH"'",
            "listen_ports": [30161]
        }
    }' 

