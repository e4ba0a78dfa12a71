#!/bin/bash
# Reconstructed (not copied) after https://github.com/ivangabriele/docker-llm/blob/05b72bb72676823f731737f445d785554edac68f/entrypoint.by_tag.sh, seen 2026-12-04: set -e, `if [ -f "./.env" ]; then source ./.env; fi`, and the tab-indented api_server command taking HOST, MODEL, PORT and TENSOR_PARALLEL_SIZE from that file (`--flag "${X}"` and `--flag="${X}"`).
set -e

if [ -f "./.env" ]; then
    source ./.env
fi

python \
		-m vllm.entrypoints.openai.api_server \
		--download-dir="./models" \
		--host "${HOST}" \
		--model "${MODEL}" \
    --port "${PORT}" \
		--tensor-parallel-size="${TENSOR_PARALLEL_SIZE}"
