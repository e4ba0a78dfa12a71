"""Secret detection: which names mark a secret, and which shapes in free text hold one.

By **name**: a setting, flag, variable or payload field whose name marks it secret (:func:`is_secret_name`,
:func:`is_secret_setting`, :func:`is_secret_flag`; the lists are in docs/redaction.md). By **shape** in
free text: ``user:password@`` in URLs, ``Authorization: Bearer|Basic X``, ``Bearer X``, ``NAME=VALUE`` /
``'name': VALUE`` with a secret name, ``--api-key X`` and well-known token formats (:func:`redact_text`,
:func:`secrets_in_text`); :func:`mask` is the one masked form. It is a unit because it decides what is
secret from the text alone, knowing no value found elsewhere in the run; redact.py's ``Redactor`` (the one
boundary) builds on it and is where callers import these names from.

Every pattern here runs in linear time: candidate starts are anchored by a lookbehind (a match can only
begin where a run of its characters begins) and runs are matched possessively, so a 1 MB alphanumeric
value costs one scan, not a scan per position (a 100 KB ``--served-model-name`` took 209 s before).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# --- names ---------------------------------------------------------------------------------------------

# A name is split into parts on anything not alphanumeric (``OPENAI_API_KEY`` -> OPENAI, API, KEY;
# ``apiKey`` -> APIKEY). Weak words count only at the end of the name's last part (``HF_TOKEN``, ``MYTOKEN``,
# ``apiKey``), so ``SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE`` and ``MAX_TOKENS`` are not secret; strong words
# count in any part (``SECRETS_JSON``, ``DB_PASSWORD_HASH``, ``S3_SECRET_ACCESS_KEY``).
WEAK_SECRET_WORDS = ("TOKEN", "KEY", "AUTH", "AUTHORIZATION", "COOKIE")
STRONG_SECRET_WORDS = ("SECRET", "SECRETS", "PASSWORD", "PASSWD", "CREDENTIAL", "CREDENTIALS")
# Parts that are secret only as a whole part: ``DB_PASS``, ``GH_PAT``, ``DB_PWD`` (not ``BYPASS``, ``PATH``).
EXACT_SECRET_PARTS = ("PASS", "PAT", "PWD")
# A name whose last part says it holds a location or a size, not the secret itself:
# ``DB_PASSWORD_FILE``, ``HF_TOKEN_PATH``, ``SSH_AUTH_SOCK``, ``PASSWORD_MIN_LENGTH``.
NOT_SECRET_LAST_PARTS = frozenset(
    {"FILE", "FILES", "PATH", "PATHS", "DIR", "SOCK", "SOCKET", "MAP", "LEN", "LENGTH", "SIZE", "COUNT",
     "NUM", "TTL", "TIMEOUT", "ENABLED", "ENABLE", "DISABLE", "DISABLED"}
)  # fmt: skip
# Whole names that look secret but hold none (the working directory, flags of tokenizers and hubs).
NOT_SECRET_NAMES = frozenset(
    {"KEY", "AUTH", "PWD", "OLDPWD", "KEYBOARD", "SSH_AUTH_SOCK", "TOKENIZERS_PARALLELISM",
     "HF_HUB_DISABLE_TOKEN", "JSON_KEY", "SORT_KEY", "CACHE_KEY", "SSL_KEYFILE", "SSL_CERTFILE",
     "SSL_CA_CERTS", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"}
)  # fmt: skip
# Names that are secret whatever the patterns say: the frameworks' own lists (vLLM's
# ``_SENSITIVE_ARG_FIELDS`` in entrypoints/common/startup.py: api_key, hf_token, watermark_config; SGLang's
# ``WATERMARK_SECRET_FIELD_NAMES``: watermark_key, watermark_key_b, watermark_config) plus the credentials
# both frameworks take without redacting them (admin_api_key, ssl_keyfile_password, watchdog_token).
SECRET_SETTINGS = frozenset(
    {"api_key", "admin_api_key", "hf_token", "ssl_keyfile_password", "watermark_key", "watermark_key_b",
     "watermark_config", "watchdog_token", "token", "password"}
)  # fmt: skip
SECRET_FLAGS = frozenset("--" + s.replace("_", "-") for s in SECRET_SETTINGS)
# vLLM's --api-key takes several values (nargs="+"): every word up to the next option is a key.
_LIST_FLAGS = frozenset({"--api-key"})
SECRET_ENV_NAMES = frozenset({"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "SECRETS_JSON"})
# Field names whose string value is a whole command line (SGLang 0.5.23 ``launch_command``).
COMMAND_LINE_FIELDS = frozenset({"launch_command", "cmdline", "command_line"})
# Values that cannot be secrets worth scrubbing elsewhere (a boolean switch named ``*_AUTH``): masked where
# their name stands, never hunted in other text, so ``--enable-x 1`` stays readable.
_TRIVIAL_VALUES = frozenset(
    {"", "0", "1", "true", "false", "yes", "no", "none", "null", "on", "off", "***", "<redacted>",
     "[redacted]", "[REDACTED]", "<hidden>"}
)  # fmt: skip
_SPLIT = re.compile(r"[^A-Z0-9]+")


def mask(secret: str) -> str:
    """``<redacted:HASH8>`` for a secret value; equal secrets give equal masks."""
    from argtrace.digest import sha256  # here: most runs mask nothing

    digest = sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"<redacted:{digest}>"


_PLACEHOLDERS = frozenset({"", "***", "<redacted>", "[redacted]", "[REDACTED]", "<hidden>"})


def already_masked(value: str) -> bool:
    """An empty value, a mask or a framework's own placeholder (``***``): nothing left to hide."""
    return value in _PLACEHOLDERS or value.startswith("<redacted:")


def is_masked(value: str) -> bool:
    """Not worth hunting elsewhere: already masked, or a trivial switch value (``1``, ``true``)."""
    return already_masked(value) or value.lower() in _TRIVIAL_VALUES


# A pure function of the name over frozen word lists; one report asks about ~110 names ~1,000 times (every
# key of the report dict, every NAME= in its texts): cached, a tenth of a short check's run (issue 18).
@lru_cache(maxsize=4096)
def is_secret_name(name: str) -> bool:
    """True for a variable, field or setting name that holds a credential.

    ``HF_TOKEN``, ``OPENAI_API_KEY``, ``AWS_ACCESS_KEY_ID``, ``DB_PASS``, ``GH_PAT``, ``SECRETS_JSON``,
    ``apiKey``,
    ``admin_api_key`` are; ``MAX_TOKENS``, ``TOKENIZERS_PARALLELISM``, ``SSH_AUTH_SOCK``, ``HF_TOKEN_PATH``
    and ``speculative_token_map`` are not.
    """
    bare = name.strip().lstrip("-").replace("-", "_")
    if bare.lower() in SECRET_SETTINGS:
        return True
    upper = bare.upper()
    if upper in SECRET_ENV_NAMES:
        return True
    if upper in NOT_SECRET_NAMES or not upper:
        return False
    if not _may_name_secret(upper):
        return False  # none of the words the tests below look for (MODEL_DIR_7, PORT)
    if upper.endswith("ACCESS_KEY_ID"):  # AWS_ACCESS_KEY_ID, S3_ACCESS_KEY_ID: half of a key pair
        return True
    parts = [p for p in _SPLIT.split(upper) if p]
    if not parts or parts[-1] in NOT_SECRET_LAST_PARTS or (len(parts) > 2 and parts[-2] == "PER"):
        return False  # a location or a quantity (``kv_bytes_per_token``), not the secret
    # str.endswith with the tuple: the same test as a loop over its words (a big script's report asks it of
    # some 3,300 distinct names, issue 18)
    if any(part.endswith(STRONG_SECRET_WORDS) for part in parts):
        return True
    if any(part in EXACT_SECRET_PARTS for part in parts):
        return True
    return parts[-1].endswith(WEAK_SECRET_WORDS)


def _may_name_secret(upper: str) -> bool:
    """``upper`` holds a word each test after the sets in :func:`is_secret_name` needs (``ACCESS_KEY_ID``:
    KEY; a part ending in a strong word: SECRET, PASSWORD, PASSWD, CREDENTIAL; an exact part: PASS, PAT, PWD;
    a last part ending in a weak word: TOKEN, KEY, AUTH, AUTHORIZATION, COOKIE). Without one, every test
    fails: a report of a big script asks about 3,300 names such as MODEL_DIR_7, a tenth of the cost of the
    full tests each (issue 18)."""
    return (
        "KEY" in upper
        or "TOKEN" in upper
        or "PASS" in upper
        or "SECRET" in upper
        or "AUTH" in upper
        or "PAT" in upper
        or "PWD" in upper
        or "CREDENTIAL" in upper
        or "COOKIE" in upper
    )


def is_secret_setting(name: str | None, flag: str | None = None) -> bool:
    """A framework setting (dest or flag) whose value is a credential: the frameworks' lists only.

    Patterns are not used for settings: ``--bucket-time-to-first-token`` or
    ``--kt-max-deferred-experts-per-token`` end in ``token`` and hold numbers. Environment settings
    (upper-case names) follow :func:`is_secret_name`.
    """
    for candidate in (name, flag):
        if not candidate:
            continue
        bare = candidate.split("=", 1)[0].strip().lstrip("-").replace("-", "_")
        if bare.lower() in SECRET_SETTINGS or (bare.isupper() and is_secret_name(bare)):
            return True
    return False


# A pure function of the flag over a frozen set, kept: a report's argv walks (to learn and to mask the
# values, issue 18) ask it of the same words many times.
@lru_cache(maxsize=4096)
def is_secret_flag(flag: str) -> bool:
    base = flag.split("=", 1)[0]
    return base.startswith("-") and base.lstrip("-").replace("-", "_").lower() in SECRET_SETTINGS


def is_secret_field(name: str) -> bool:
    """True for a payload field name holding a credential (``api_key``, ``hf_token``, ``watermark_key``)."""
    return is_secret_name(name)


# --- shapes in free text (all linear: anchored starts, possessive runs) -----------------------------------


class _Lazy:
    """A regular expression compiled on first use: start-up (``argtrace --version``) compiles none."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        if self._compiled is None:
            self._compiled = re.compile(*self._source)
        value = getattr(self._compiled, name)
        # Kept on the instance: the next ``.sub``/``.finditer`` is found without this call (a report's
        # redaction asked ~4,000 times, issue 18).
        setattr(self, name, value)
        return value


# Values that look like tokens whatever their name: Hugging Face, OpenAI-style, GitHub, AWS, Slack, JWT.
# A token may also be glued to a one-letter option (``curl -khf_...``, ``-tsk-...``, ``mysql -pAKIA...``): the
# lookbehind then allows ``-X`` standing at a word start (probe of session 15: shown whole before).
_TOKEN_VALUE = _Lazy(
    r"(?:(?<![A-Za-z0-9_\-])|(?<=(?<![A-Za-z0-9_\-])-[A-Za-z]))(?:hf_[A-Za-z0-9]{20,}+|sk-[A-Za-z0-9_\-]{20,}+|gh[pousr]_[A-Za-z0-9]{20,}+"
    r"|github_pat_[A-Za-z0-9_]{20,}+|AKIA[0-9A-Z]{16}(?![0-9A-Z])|xox[baprs]-[A-Za-z0-9\-]{10,}+"
    r"|eyJ[A-Za-z0-9_\-]{10,}+\.[A-Za-z0-9_\-]{10,}+\.[A-Za-z0-9_\-]++)"
)
# user:password@ in URLs. The scheme can only start where a run of scheme characters starts.
_URL_PASSWORD = _Lazy(
    r"(?<![A-Za-z0-9+.\-])(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*+://)(?P<user>[^:/@\s]*+):(?P<pw>[^@/\s]++)@"
)
# Authorization headers and bearer tokens: ``Authorization: Basic X``, ``Bearer X`` (any case).
# A bare ``Bearer X`` counts only capitalised (``bearer token`` in prose is no header).
_AUTH_HEADER = _Lazy(
    r"(?<![A-Za-z0-9_\-])(?P<head>(?i:(?:proxy-)?authorization)['\"]?\s*+[:=]\s*+['\"]?"
    r"(?i:(?:bearer|basic|token|digest|apikey)\s++)?+|(?:Bearer|BEARER)\s++)(?P<value>[A-Za-z0-9._~+/=\-]++)"
)
# ``NAME=VALUE``, ``'name': VALUE``, ``"name": VALUE``, ``--flag VALUE``, ``--flag=VALUE`` whose name is
# secret (decided by is_secret_name in the callback). VALUE: a quoted string, a bracketed list of quoted
# strings, or a bare word. ``--flag VALUE`` never takes a word starting with ``-``: that is the next flag,
# and swallowing it would hide a ``--api-key=X`` right after a valueless flag.
_QUOTED = r"'[^'\n]*+'|\"[^\"\n]*+\""
# Bash's ANSI-C quoting ``NAME=$'value'`` (a backslash escapes the closing quote) and locale quoting
# ``$"value"``: without them the VALUE read was the lone ``$``, no credential, and the value stayed visible.
_DOLLAR_QUOTED = r"\$'(?:[^'\\\n]|\\.)*+'|\$\"[^\"\n]*+\""
_LIST = r"\[(?:\s*+(?:" + _QUOTED + r")\s*+,?)*+\s*+\]"
_BARE = r"[^\s,;'\"\[\]{}()<>]++"
# A match is only the name: its VALUE is read (``_VALUE.match``) for a secret name alone, so a secret shape
# inside a value that is not secret (``--model HF_TOKEN=x``) is still found by the scan that goes on right
# after the name, and every character is read by at most one value (linear time).
# An HTTP header ``X-Api-Key: VALUE``, ``api-key: VALUE`` (Azure OpenAI), ``Private-Token: VALUE``: a name
# with a hyphen, a colon and blanks on one line (``curl -H "..."`` in launch scripts, request dumps in logs).
# Before session 15's probe only ``Authorization`` headers were a shape and these values were shown.
_NAMED_VALUE = _Lazy(
    r"(?P<lead>(?<![A-Za-z0-9_.\-])(?:(?P<q>['\"])(?P<qname>[A-Za-z_][A-Za-z0-9_.\-]*+)(?P=q)\s*+[:=]"
    r"\s*+|(?P<name>[A-Za-z_][A-Za-z0-9_.]*+)=|(?P<flag>--[A-Za-z][A-Za-z0-9\-]*+)(?:=|\s++(?!-))"
    r"|(?P<lq>['\"])(?P<listed>--[A-Za-z][A-Za-z0-9\-]*+)(?P=lq)\s*+,\s*+(?=['\"](?!-))"
    r"|(?<!#)(?P<header>[A-Za-z][A-Za-z0-9]*+(?:-[A-Za-z0-9]++)++):[ \t]*+))"
)
# A quoted flag then a quoted item, as a command list writes them in Python, JSON or YAML's flow style
# (``['--api-key', 'VALUE']``): a Python launcher's list grown under an ``if`` is not known as a whole, and
# its words were shown from the source with no name before the value (the fuzzers of session 29). An item
# starting with ``-`` is the next flag (argparse takes no such value), as for ``--flag VALUE``.
# (Not after ``#``: a counter's label, SGLang's batch lines ``#new-token: 896, #cached-token: 0``
# (scheduler_metrics_mixin.py), whose numbers were masked as a ``New-Token:`` header's value.)
# A shell word made of several quoted and bare pieces (``'sk-'"abc"def``, ``"$PREFIX"tail``): the whole word
# is the value. Read as one quoted string it left the other pieces of the secret visible in every quoted
# source line (probe of session 13: 14 of a 22-character ``--admin-api-key`` shown).
_SEGMENT = r"'[^'\n]*+'|\"[^\"\n]*+\"|[^\s,;'\"\[\]{}()<>]++"
_PIECED_WORD = r"(?:" + _SEGMENT + r"){2,}+"
_VALUE = _Lazy(_LIST + "|" + _DOLLAR_QUOTED + "|" + _PIECED_WORD + "|" + _QUOTED + "|" + _BARE)
_PIECE = _Lazy(_SEGMENT)
# what is left of a word's spelling without its parameter expansions: literal characters of the value
_LITERAL_LEFT = _Lazy(r"\$\{[^}]*+\}|\$[A-Za-z_][A-Za-z0-9_]*+|\$[0-9@*#?$!-]")
_QUOTED_ITEM = _Lazy(_QUOTED)


def _pieces(value: str) -> list[str]:
    """The quoted and bare pieces of a VALUE that is one shell word of several (else one or none)."""
    if value[:1] == "[" or value[:2] in ("$'", '$"'):
        return [value]
    return [m.group(0) for m in _PIECE.finditer(value)]


def _mask_value_text(value: str) -> str:
    """A matched VALUE (quoted, a list of quoted strings, a word of several pieces, or bare) with each
    element masked."""
    if value.startswith("["):
        return _QUOTED_ITEM.sub(lambda m: _mask_value_text(m.group(0)), value)
    if value[:2] in ("$'", '$"') and len(value) >= 3:  # $'...' / $"...": the quoted part masked
        return "$" + _mask_quoted(value[1:])
    if len(_pieces(value)) > 1:
        return mask(value)  # a word of several pieces: all of it
    return _mask_quoted(value)


def _mask_quoted(value: str) -> str:
    if len(value) >= 2 and value[0] in "'\"" and value[-1] == value[0]:
        inner = value[1:-1]
        return value if inner == "" or is_masked(inner) else f"{value[0]}{mask(inner)}{value[0]}"
    return value if is_masked(value) else mask(value)


def _value_items(value: str) -> list[str]:
    pieces = _pieces(value)
    if len(pieces) > 1:  # the word as written and the value the shell makes
        joined = "".join(p[1:-1] if p[:1] in "'\"" and len(p) >= 2 else p for p in pieces)
        return [value, joined]
    if value.startswith("["):
        return [m.group(0)[1:-1] for m in _QUOTED_ITEM.finditer(value)]
    if value[:2] in ("$'", '$"') and len(value) >= 3:
        return [value[2:-1]]
    if len(value) >= 2 and value[0] in "'\"" and value[-1] == value[0]:
        return [value[1:-1]]
    return [value]


def _could_be_secret(value: str) -> bool:
    """A value with no letter or digit is no credential: the ``$`` that starts ``${HF_TOKEN}`` (a bare value
    stops at ``{``), a ``-`` placeholder. Masking it would mangle every other ``$`` of the report."""
    return any(c.isalnum() for c in value)


def _named_is_secret(m: re.Match[str]) -> bool:
    if m["flag"] or m["listed"]:
        return is_secret_flag(m["flag"] or m["listed"])
    if m["header"]:  # ``Proxy-Authorization: Basic X`` is _AUTH_HEADER's: its value is X, not ``Basic``
        header = m["header"]
        return is_secret_name(header) and not header.upper().endswith("AUTHORIZATION")
    name = m["qname"] or m["name"] or ""
    return is_secret_name(name)


# Words that follow a flag in prose, argtrace's own messages first (`--hf-token is a vLLM flag`): after
# `--flag ` (a blank, not `=`) they are the sentence, not the flag's value. Read as values they were masked
# there and, once known, as whole words everywhere else in the report (session 13's probe; session 28's:
# PA013's "the value of --api-key comes from $(KEY)" masked every "comes" of the report). A launch's own
# `--api-key is` is still masked: its words are read by position (argv_secrets), not by this shape.
# tests/security/test_redactor.py checks that each word argtrace's own messages put after a flag is here.
_PROSE_AFTER_FLAG = frozenset(
    {"is", "are", "was", "were", "has", "have", "had", "and", "or", "not", "the", "a", "an", "to", "of", "in",
     "on", "at", "with", "without", "takes", "given", "set", "also", "only", "must", "which", "that", "when",
     "from", "for", "as", "by", "but", "if", "then", "now", "no", "can", "cannot", "does", "do", "did",
     "comes", "becomes", "gets", "goes", "may", "might", "will", "would", "should", "could", "needs", "names",
     "never", "nothing", "once", "reaches", "runs", "sets", "together", "where", "while", "works", "loses",
     "literally", "installed", "keeps", "stays", "changes", "wins", "overrides", "follows", "expects",
     "requires", "accepts", "value", "extra", "line", "exec", "unset", "stops"}
)  # fmt: skip


# What each shape above cannot match without, tested with ``in`` first: each pattern starts with a
# lookbehind, so a search tries it at every position of the text, and a report of a big script asks them
# of ~7,000 strings (its exported variables' paths, locations, spellings; issue 18). Exact: a text without
# these has no match (tests/security/test_redact_prefilter.py compares with the patterns alone).
_TOKEN_MARKS = (
    "hf_",
    "sk-",
    "gh",
    "github_pat_",
    "AKIA",
    "xox",
    "eyJ",
)  # every alternative of _TOKEN_VALUE holds one


def _may_hold_token(text: str) -> bool:
    # _TOKEN_MARKS spelled out: a generator over them cost more than the tests
    return (
        "hf_" in text
        or "sk-" in text
        or "gh" in text
        or "github_pat_" in text
        or "AKIA" in text
        or "xox" in text
        or "eyJ" in text
    )


def _may_hold_url_password(text: str) -> bool:
    return "://" in text and "@" in text  # scheme://user:pw@


def _may_hold_auth(text: str) -> bool:
    if "Bearer" in text or "BEARER" in text:
        return True
    # (?i:authorization): in ASCII text only ASCII letters match it, which lower() folds; other text may
    # hold characters that match a letter without ignoring case (the Kelvin sign's k): searched
    return "authorization" in text.lower() if text.isascii() else True


def _may_hold_named(text: str) -> bool:
    # name=, --flag, 'name': (a quote and a colon) or Header-Name: (a hyphen and a colon)
    return "=" in text or "--" in text or (":" in text and ("-" in text or "'" in text or '"' in text))


def _secret_values_at(text: str) -> tuple[tuple[int, int, str], ...]:
    """(start, end, value) of the VALUE of every secret ``NAME=VALUE`` / ``--flag VALUE`` in ``text``.

    A pure function of the text (the names and words it tests are constants), kept for the last texts
    asked: a report's strings are read twice, once to learn the secrets they reveal (:func:`secrets_in_text`)
    and once to mask them (:func:`redact_text`), and the search of ``_NAMED_VALUE`` at every position was
    most of both (issue 18: 3 M instructions of the example's check)."""
    if not _may_hold_named(text):
        return ()
    return _secret_values_kept(text)


@lru_cache(maxsize=4096)
def _secret_values_kept(text: str) -> tuple[tuple[int, int, str], ...]:
    return tuple(_search_secret_values(text))


def _search_secret_values(text: str) -> Iterator[tuple[int, int, str]]:
    done = 0
    for m in _NAMED_VALUE.finditer(text):
        if m.start() < done or not _named_is_secret(m):
            continue
        value = _VALUE.match(text, m.end())
        if value is None or not _could_be_secret(value.group(0)):
            continue
        prose = m["header"] or (m["flag"] and not m.group(0).endswith("="))
        if prose and value.group(0).lower() in _PROSE_AFTER_FLAG:
            continue
        done = value.end()
        yield m.end(), value.end(), value.group(0)


def _named_sub_all(text: str) -> str:
    """``text`` with the VALUE of every secret ``NAME=VALUE`` / ``--flag VALUE`` masked."""
    out: list[str] = []
    done = 0
    for start, end, value in _secret_values_at(text):
        out.append(text[done:start])
        out.append(_mask_value_text(value))
        done = end
    if not out:
        return text
    out.append(text[done:])
    return "".join(out)


def redact_text(text: str) -> str:
    """Mask secret shapes inside free text: URL passwords, Authorization/Bearer values, ``NAME=VALUE`` and
    ``--flag VALUE`` with secret names, token-looking words."""
    if not text:
        return text
    return _redact_text_kept(text)


# A pure function of the text (the patterns, names and words are constants, a mask is the value's hash),
# kept for the last texts asked: a report masks an argv's words (redact_argv) and then each word again as a
# string (Redactor.text), and one launch's argv is quoted in several places (issue 18, cold33).
@lru_cache(maxsize=4096)
def _redact_text_kept(text: str) -> str:
    if _may_hold_url_password(text):
        text = _URL_PASSWORD.sub(
            lambda m: m.group(0) if already_masked(m["pw"]) else f"{m['scheme']}{m['user']}:{mask(m['pw'])}@",
            text,
        )
    if _may_hold_auth(text):
        text = _AUTH_HEADER.sub(
            lambda m: m.group(0) if already_masked(m["value"]) else f"{m['head']}{mask(m['value'])}", text
        )
    text = _named_sub_all(text)
    return _TOKEN_VALUE.sub(lambda m: mask(m.group(0)), text) if _may_hold_token(text) else text


def secrets_in_text(text: str) -> set[str]:
    """The secret values the shapes of :func:`redact_text` reveal in ``text`` (to mask them elsewhere)."""
    if not text:
        return set()
    return set(_secrets_in_text_kept(text))


# A pure function of the text, as _redact_text_kept: a report's argv words are read by argv_secrets and
# again as strings of the report (Redactor.learn_data), and an argv is quoted in several places.
@lru_cache(maxsize=4096)
def _secrets_in_text_kept(text: str) -> frozenset[str]:
    found: set[str] = set()
    if _may_hold_url_password(text):
        found.update(m["pw"] for m in _URL_PASSWORD.finditer(text))
    if _may_hold_auth(text):
        found.update(m["value"] for m in _AUTH_HEADER.finditer(text))
    for _start, _end, value in _secret_values_at(text):
        found.update(_value_items(value))
    if _may_hold_token(text):
        found.update(m.group(0) for m in _TOKEN_VALUE.finditer(text))
    return frozenset(s for s in found if not is_masked(s))
