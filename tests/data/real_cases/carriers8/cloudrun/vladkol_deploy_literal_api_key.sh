# Source: https://github.com/vladkol/qwen-3-enbedding-cloud-run/blob/15dd5a2acf6d84937d1d939080f366cd56e13766/deploy.sh (copied unchanged; the shebang and licence header are left out)
PROJECT_ID="${1}" # <-- Google Cloud Project ID to deploy to.
CUSTOM_API_KEY="${2}" # <-- You secret text for API Key.
REGION="us-central1" # Cloud region with Cloud Run GPU availability.

HF_MODEL="Qwen/Qwen3-Embedding-0.6B"
SERVICE_NAME="qwen3-embedding-vllm"

if [[ "${PROJECT_ID}" == "" ]]; then
    PROJECT_ID=$(gcloud config get-value project -q)
fi

echo "Deploying to project ${PROJECT_ID}"

pip install -U "huggingface_hub[cli]" -q

set -e

echo "Creating the service account if doesn't exist..."
SERVICE_ACCOUNT="vllm-cloud-run-sa"
SERVICE_ACCOUNT_ADDRESS="${SERVICE_ACCOUNT}@$PROJECT_ID.iam.gserviceaccount.com"
sa_list=$(gcloud iam service-accounts list --quiet --format "value(email)" --project "${PROJECT_ID}" --filter "email:${SERVICE_ACCOUNT_ADDRESS}" 2>/dev/null)
if [ -z "${sa_list}" ]; then
    echo "Creating Service Account ${SERVICE_ACCOUNT}."
    gcloud iam service-accounts create "${SERVICE_ACCOUNT}" \
        --project "${PROJECT_ID}" \
        --display-name="${SERVICE_ACCOUNT} - Cloud Run Service Account"
fi

BUCKET_NAME="huggingface-cache-${PROJECT_ID}-${REGION}"
echo "Creating ${BUCKET_NAME} GCS bucket if doesn't exist..."
gcloud storage buckets describe "gs://${BUCKET_NAME}" -q &> /dev/null || gcloud storage buckets create "gs://${BUCKET_NAME}" --location="${REGION}" --project="${PROJECT_ID}"
echo "Granting the service account access to the bucket..."
gcloud storage buckets add-iam-policy-binding "gs://${BUCKET_NAME}" --member="serviceAccount:${SERVICE_ACCOUNT_ADDRESS}" --role="roles/storage.objectViewer"

echo "Downloading the model..."
temp_dir=$(mktemp -d)
huggingface-cli download "${HF_MODEL}" --cache-dir="${temp_dir}"

echo "Uploading model files to the bucket..."
gcloud storage cp --recursive --no-clobber "${temp_dir}/*" "gs://${BUCKET_NAME}/hub"
rm -rf "${temp_dir}"

echo "Deploying Cloud Run service..."
gcloud beta run deploy "${SERVICE_NAME}" \
    --image="us-docker.pkg.dev/vertex-ai/vertex-vision-model-garden-dockers/pytorch-vllm-serve:20250601_0916_RC01" \
    --project="${PROJECT_ID}" \
    --region="${REGION}" \
    --service-account="${SERVICE_ACCOUNT_ADDRESS}" \
    --add-volume name=model-cache-volume,type=cloud-storage,bucket=${BUCKET_NAME},readonly=true \
    --add-volume-mount volume=model-cache-volume,mount-path=/model-cache \
    --set-env-vars CUSTOM_API_KEY="${CUSTOM_API_KEY}",VLLM_LOGGING_LEVEL=WARNING,HF_HUB_OFFLINE=1,HF_HOME=/model-cache \
    --command="python3" \
    --args="-m,vllm.entrypoints.openai.api_server,--model=${HF_MODEL},--task=embed,--port=8080,--api-key=\$CUSTOM_API_KEY" \
    --port=8080 \
    --cpu=8 \
    --memory=32Gi \
    --gpu-type=nvidia-l4 \
    --gpu=1 \
    --max-instances=3 \
    --no-gpu-zonal-redundancy \
    --cpu-boost \
    --no-cpu-throttling \
    --allow-unauthenticated \
    --timeout 1h

SERVICE_URL=$(gcloud run services describe ${SERVICE_NAME} --project=${PROJECT_ID} --region=${REGION} --format="value(status.url)" -q)

echo "Testing service ${SERVICE_URL}/v1/embeddings:"
curl "${SERVICE_URL}/v1/embeddings" \
    -H "Authorization: Bearer ${CUSTOM_API_KEY}" \
    -H "Content-Type: application/json" \
    -d "{ \"input\": [\"Hello world!\"], \"model\": \"${HF_MODEL}\" }"
echo "✅ Done!"
echo "🚀 Service deployed to ${SERVICE_URL}"
