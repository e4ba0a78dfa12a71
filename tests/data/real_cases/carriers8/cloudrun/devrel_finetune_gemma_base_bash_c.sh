# Reconstructed from the README's code blocks (the exports of sections 1 and 1.5, the deploy of section 2), copied unchanged: https://github.com/GoogleCloudPlatform/devrel-demos/blob/34d1d8cfa19fc5ebd603310fc1513b895dabf6fb/ai-ml/finetune_gemma/README.md lines 17-20, 36-37, 57-71
export PROJECT_ID=$(gcloud config get-value project)
export REGION=europe-west4
export BUCKET_NAME=$PROJECT_ID-models
export HF_TOKEN=your_huggingface_token
export VPC_NETWORK=vllm-network
export VPC_SUBNET=vllm-subnet
gcloud beta run deploy vllm-gemma-4-31b-base \
    --image="us-docker.pkg.dev/vertex-ai/vertex-vision-model-garden-dockers/pytorch-vllm-serve:gemma4" \
    --region $REGION \
    --no-allow-unauthenticated \
    --gpu 1 \
    --gpu-type nvidia-rtx-pro-6000 \
    --no-gpu-zonal-redundancy \
    --network $VPC_NETWORK \
    --subnet $VPC_SUBNET \
    --vpc-egress all-traffic \
    --set-env-vars "MODEL_NAME=google/gemma-4-31b-it,GOOGLE_CLOUD_PROJECT=$PROJECT_ID,GOOGLE_CLOUD_REGION=$REGION" \
    --startup-probe tcpSocket.port=8080,initialDelaySeconds=240,failureThreshold=1,timeoutSeconds=240,periodSeconds=240 \
    --command "bash" \
    --args="^;^-c;vllm serve gs://$BUCKET_NAME/google/gemma-4-31b-it --served-model-name google/gemma-4-31b-it --enable-log-requests --enable-chunked-prefill --enable-prefix-caching --generation-config auto --dtype bfloat16 --quantization fp8 --kv-cache-dtype fp8 --max-num-seqs 8 --gpu-memory-utilization 0.95 --tensor-parallel-size 1 --load-format runai_streamer --port 8080 --host 0.0.0.0 --max-model-len 32767" \
    --timeout 3600
