#!/bin/sh
set -u
start() {
  sglang serve "$@"
}
start --enable-precise-embedding-interpolation --no-enable-tp-lm-head-all-to-all --model-loader-extra-config ${2:-x} --pp-size -1 --allow-auto-truncate --speculative-draft-model-quantization="modelslim" --dist-init-addr "$1" --dsa-paged-mqa-logits-backend "deepgemm" --eplb-rebalance-layers-per-chunk "${@:2}" --load-snapshot-publish-interval 1 --elastic-ep-backend 'mooncake' --flexkv-config-file "a b" --enable-metrics --admin-api-key 'Zq7aMx7c3scZciMmoigCWIlxGZl' "$@"
V1=$(echo $(echo $(echo q)))
