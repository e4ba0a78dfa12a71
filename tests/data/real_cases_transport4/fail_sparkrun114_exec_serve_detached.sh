#!/bin/bash
# The script sparkrun generated before https://github.com/spark-arena/sparkrun/pull/114 (2026-04-05): its template
# src/sparkrun/scripts/exec_serve_detached.sh at spark-arena/sparkrun@a7d886d^ filled as
# executor.generate_exec_serve_script did (the serve command's ' replaced by '\'', then put inside
# bash -c "nohup bash -c '...'"). The --hf-overrides JSON is the one the PR quotes; the model path, port
# and container name are placeholders (the recipe's are not shown). Reported: vLLM got
# {rope_scaling: {rope_type: yarn, ...}} and crashed in json.loads.
set -uo pipefail

echo "Executing serve command in container sparkrun_solo (detached)..."
docker exec sparkrun_solo bash -c "nohup bash -c 'vllm serve /models/model --port 8000 --hf-overrides '\''{"rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 262144}}'\''' > /tmp/sparkrun_serve.log 2>&1 & echo \$! > /tmp/sparkrun_serve.pid"

# Watchdog: when serve process exits, kill sleep infinity (PID 1) so container exits
docker exec -d sparkrun_solo bash -c 'SERVE_PID=$(cat /tmp/sparkrun_serve.pid); while kill -0 $SERVE_PID 2>/dev/null; do sleep 5; done; kill 1'

# Wait for process to start and produce initial output
sleep 3

# Check if the serve process is still running
SERVE_PID=$(docker exec sparkrun_solo cat /tmp/sparkrun_serve.pid 2>/dev/null)
if [ -n "$SERVE_PID" ] && ! docker exec sparkrun_solo kill -0 "$SERVE_PID" 2>/dev/null; then
    echo "============================================================" >&2
    echo "ERROR: Serve process exited immediately (PID $SERVE_PID)" >&2
    echo "Container logs:" >&2
    docker exec sparkrun_solo cat /tmp/sparkrun_serve.log 2>/dev/null >&2 || true
    echo "============================================================" >&2
    exit 1
fi

echo "============================================================"
echo "Initial log output:"
docker exec sparkrun_solo tail -n 30 /tmp/sparkrun_serve.log 2>/dev/null || echo "(no log output yet)"
echo "============================================================"
echo "Serve command launched in background."
echo "To follow logs:  ssh <host> docker exec sparkrun_solo tail -f /tmp/sparkrun_serve.log"
