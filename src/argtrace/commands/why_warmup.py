"""``why`` on SGLang's start-up warmup refused with a web page: the proxy the warmup request went through.

After the HTTP server starts, SGLang checks itself with ``requests``: ``_execute_server_warmup``
(``srt/entrypoints/http_server.py``, 0.5.x; ``_wait_and_warmup`` of ``srt/server.py`` before) gets
``server_args.url() + "/model_info"`` (the ``--api-key`` as a Bearer header) and asserts
``res.status_code == 200, f"{res=}, {res.text=}"``. ``requests`` sends a request through the proxy that
``http_proxy``/``HTTP_PROXY``/``https_proxy``/``ALL_PROXY`` name unless ``no_proxy``/``NO_PROXY`` covers the
host (its ``trust_env`` default; requests' documentation, "Proxies"). SGLang's own endpoints answer JSON
(FastAPI), so an HTML error page in the quoted ``res.text`` (sglang#11949: nginx's "403 Forbidden" for a
server on 127.0.0.1) is the answer of something between the warmup and the server: the proxy of the server
process's environment. The assertion names no setting and its generic fix ("make the condition false")
says nothing of that; the match's fix gains the way out.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_WARMUP = re.compile(r"sglang/srt/(?:entrypoints/http_server|server)\.py$")
_FUNCTIONS = ("_execute_server_warmup", "_wait_and_warmup")
# the quoted response text of the assertion, when it is an HTML page: res.text='<html>...<title>403 ...'
_HTML_TEXT = re.compile(r"res\.text=['\"]\s*<(?:!doctype\s+)?html", re.IGNORECASE)
_TITLE = re.compile(r"<title>\s*([^<]{1,80}?)\s*</title>", re.IGNORECASE)
_STATUS = re.compile(r"<Response \[(\d{3})\]>")

PROXY_VARIABLES = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "ALL_PROXY", "all_proxy")


def add_warmup_proxy_cause(groups: list[dict[str, Any]], text: str) -> None:
    """On the first match when it is SGLang's warmup assertion and the quoted response is an HTML page:
    the fix names the proxy variables that route the warmup request, and ``no_proxy``."""
    if not groups or not _HTML_TEXT.search(text):
        return
    first = groups[0]
    if first.get("framework") != "sglang" or not _WARMUP.search(str(first.get("file") or "")):
        return
    if str(first.get("function") or "").rsplit(".", 1)[-1] not in _FUNCTIONS:
        return
    status = _STATUS.search(text)
    title = _TITLE.search(text)
    answer = f"status {status.group(1)}" if status else "an error"
    page = f" ({title.group(1)!r})" if title else ""
    fix = (
        f"the warmup got {answer} with a web page{page}, and SGLang's endpoints answer JSON: the page is "
        "not the server's own, most likely a proxy's between the warmup and the server. SGLang sends its "
        "warmup request to its own address (--host, --port) with requests, which uses the proxy that "
        f"{'/'.join(PROXY_VARIABLES)} name in the server's environment unless no_proxy/NO_PROXY covers the "
        "host: add the server's host (127.0.0.1,localhost or the --host address) to no_proxy and NO_PROXY "
        "in the server's environment, or unset the proxy variables there"
    )
    first["fix"] = f"{first['fix']}; {fix}" if first.get("fix") else fix
