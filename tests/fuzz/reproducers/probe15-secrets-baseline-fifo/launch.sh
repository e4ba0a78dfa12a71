#!/bin/bash
curl -s -H "X-Api-Key: hf_X6tzohaNHeOeqnIEfo0OkZ6n" http://h/v1/models
vllm serve m --api-key Zq7fhJZAqYf7Gr\
Cen3G4UGWJSDb --tp 2 --tp 4
