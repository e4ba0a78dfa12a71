#!/bin/bash
# https://github.com/sassoftware/sas-mcp-server/pull/32 (2026-07-24): `source .env` in a Bash terminal, with the
# repository's .env.sample copied to .env. Reported: "bash: Job: command not found". The MCP server (Python) reads
# COMPUTE_CONTEXT_NAME from the environment; how it was started after the source is not shown.
source .env
