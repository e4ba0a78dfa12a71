# https://github.com/topoteretes/cognee/issues/1750 (2025-11-06, cognee 0.3.9): the command as posted, run beside
# the posted .env. Reported: {"error": "'\"openai\"' is not a valid LLMProvider"}. A Python (FastAPI) server.
docker run --name cognee-local --env-file ./.env -p 8000:8000 --rm -it cognee/cognee:main
