# https://github.com/n3d1117/chatgpt-telegram-bot/issues/168 (2023-04-02): the command as posted (the .env path
# shortened to ./.env). Reported: telegram.error.InvalidToken; https://github.com/n3d1117/chatgpt-telegram-bot/issues/170
# names the cause: quotes in the .env, which `docker run --env-file` keeps. A Python bot, not a server of ours.
sudo docker run --env-file=./.env -d --name chatgpt_telegram_bot ghcr.io/n3d1117/chatgpt-telegram-bot:latest
