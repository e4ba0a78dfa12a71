# https://github.com/n3d1117/chatgpt-telegram-bot/issues/140 (2023-04-01): the command as posted. Reported:
# telegram.error.InvalidToken: Not Found; https://github.com/n3d1117/chatgpt-telegram-bot/issues/170 names quoted values.
docker run --env-file .env ghcr.io/n3d1117/chatgpt-telegram-bot
