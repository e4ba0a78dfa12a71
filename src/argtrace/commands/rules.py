"""``argtrace rules [CODE]``: the rule catalog (every finding code with its rationale, example and fix)."""

from __future__ import annotations

import argparse
import sys

NAME = "rules"
HELP = "list the finding codes argtrace can emit, or explain one"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("code", nargs="?", help="a finding code such as PA003 (default: list all)")


def run(args: argparse.Namespace) -> int:
    import json  # here, not at the top: `argtrace --help` imports every command module (issue 18)

    from argtrace.rules import all_rules
    from argtrace.rules.docs import rule_markdown

    rules = all_rules()
    if args.code:
        rules = [r for r in rules if r.code.upper() == args.code.upper()]
        if not rules:
            print(
                f"argtrace rules: no rule {args.code!r} (run `argtrace rules` for the list)", file=sys.stderr
            )
            return 2
    if args.format == "json":
        print(
            json.dumps(
                [
                    {
                        "code": r.code,
                        "layer": r.layer,
                        "severity": r.severity,
                        "title": r.title,
                        "rationale": r.rationale,
                        "fix": r.fix,
                        "example": {"argv": list(r.example.argv)},
                    }
                    for r in rules
                ],
                indent=2,
            )
        )
    elif args.code:
        print(rule_markdown(rules[0]))
    else:
        for r in rules:
            print(f"{r.code}  {r.layer:<10} {r.severity:<7} {r.title}")
    return 0
