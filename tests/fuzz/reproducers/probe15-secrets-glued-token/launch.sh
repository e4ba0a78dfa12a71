#!/bin/bash
curl -s -khf_WHYqo9Jeqe8hTWek4W7uErDp http://h/v1/models
export HF_TOKEN=pwEULtr\
tAdHgcG
vllm serve m --tp 2 --tp 4 --api-key "$HF_TOKEN"
