#!/bin/bash
# Reconstructed (not copied) after https://github.com/PedroFariadtx/Custom-vLLM/blob/ef4e825b306b85aab6d76aa05c269cb97c4dfffd/stt_server.sh, seen 2026-12-03: the Whisper server started as the condition of an `until ...; do sleep 5; done` retry loop, with its API key, port and memory fraction.
until vllm serve fsicoli/whisper-large-v3-pt-cv19-fleurs \
  --api-key token-abc123 \
  --port 8082 \
  --gpu-memory-utilization 0.2; do
  echo "retrying in 5 seconds"
  sleep 5
done
