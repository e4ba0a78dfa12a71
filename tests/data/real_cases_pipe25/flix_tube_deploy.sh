#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/JayKay24/flix-tube/blob/HEAD/scripts/deploy.sh (seen 2026-12-04): a kustomize overlay rendered with `kubectl apply -k ... -o json`, passed through envsubst, applied with `kubectl apply -f -`

deployment_env=$1
kubectl apply -k $deployment_env --dry-run="client" -o json | \
  envsubst | \
  kubectl apply -f -
