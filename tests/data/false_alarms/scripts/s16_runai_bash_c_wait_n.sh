# Reconstructed (not copied) after https://github.com/run-ai/models/blob/7d713d019acc8d60c2ccd5baa0ae1050658ec45d/models/vllm/app.sh, seen 2026-12-03: the server started in `bash -c "..."` with ${NAME} expanded by the outer shell (the container's environment sets it), two helpers beside it and `wait -n`.
bash -c "python3 -m vllm.entrypoints.openai.api_server --model /model --served-model-name ${NAME}" &
bash -i -c "npm run dev --prefix chatbot-ui" &
bash -c "python3 ready.py" &
wait -n
