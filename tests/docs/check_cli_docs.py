#!/usr/bin/env python3
"""Fails when `linkscope-cli --help` or `linkscope-cli CMD --help` names a command or an option that
docs/cli.md does not.

docs/cli.md gives each command a section headed `## CMD`; an option counts as documented when its
name (`--kb`, or a short name such as `-h`) appears in that command's section. The options of the
program itself (`linkscope-cli --version`) belong in the text before the first command's section.
`-h,--help`, which CLI11 gives every command, need not be repeated in every section.

  check_cli_docs.py --cli build/default/bin/linkscope-cli --doc docs/cli.md [--without NAME]

`--without NAME` deletes every mention of NAME (an option or a command) from the page as read, so
that a second test can check that the check fails on a page that lacks it.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

ALWAYS_THERE = {"-h", "--help"}
OPTION_NAME = re.compile(r"^--?[A-Za-z0-9][A-Za-z0-9-]*$")


# What a build without LibTorch answers for a command that exists only in linkscope-cli-dense.
NO_DENSE_ENGINE = "needs the dense engine (LibTorch), which this build of linkscope-cli lacks"


def help_text(cli: str, *args: str) -> str | None:
    """The help text; None for a command that this build (no LibTorch) does not have."""
    result = subprocess.run([cli, *args, "--help"], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "LINKSCOPE_HUGE_PAGES": "0"})
    if result.returncode != 0 and args and NO_DENSE_ENGINE in result.stderr:
        return None
    if result.returncode != 0:
        sys.exit(f"check_cli_docs: `{cli} {' '.join(args)} --help` exited with {result.returncode}:\n"
                 f"{result.stderr}")
    return result.stdout


def sections(text: str) -> dict[str, list[str]]:
    """The lines of each help section, by its heading in lower case ('options', 'subcommands', ...)."""
    found: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        heading = re.match(r"^([A-Za-z ]+):\s*$", line)
        if heading:
            current = heading.group(1).strip().lower()
            found[current] = []
        elif current is not None:
            found[current].append(line)
    return found


def option_names(text: str) -> list[str]:
    """The option names of a help text: the first column of the lines of its options section."""
    names: list[str] = []
    for line in sections(text).get("options", []):
        # An option's line starts with its names; a description carried over is indented further.
        match = re.match(r"^ {1,4}(-\S+)", line)
        if not match:
            continue
        for name in match.group(1).split(","):
            if OPTION_NAME.match(name):
                names.append(name)
    return names


def command_names(text: str) -> list[str]:
    names: list[str] = []
    for line in sections(text).get("subcommands", []):
        match = re.match(r"^ {1,4}([a-z][a-z0-9-]*)\b", line)
        if match:
            names.append(match.group(1))
    return names


def doc_sections(doc: str) -> tuple[str, dict[str, str]]:
    """The text before the first `## ` heading, and the text of each `## CMD` section."""
    parts = re.split(r"^## +`?([A-Za-z0-9-]+)`?[^\n]*\n", doc, flags=re.MULTILINE)
    preamble, by_command = parts[0], {}
    for name, body in zip(parts[1::2], parts[2::2]):
        by_command[name] = body
    return preamble, by_command


def mentions(text: str, name: str) -> bool:
    # `--kb` must not be found inside `--kb-format`, nor `-h` inside `-help`.
    return re.search(r"(?<![A-Za-z0-9-])" + re.escape(name) + r"(?![A-Za-z0-9-])", text) is not None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", required=True, help="the built linkscope-cli")
    parser.add_argument("--doc", required=True, help="docs/cli.md")
    parser.add_argument("--without", help="delete this name from the page as read (to see the check fail)")
    args = parser.parse_args()

    with open(args.doc, encoding="utf-8") as file:
        doc = file.read()
    if args.without:
        doc = re.sub(r"(?<![A-Za-z0-9-])" + re.escape(args.without) + r"(?![A-Za-z0-9-])", "", doc)
    preamble, documented = doc_sections(doc)

    missing: list[str] = []
    top = help_text(args.cli)
    for name in option_names(top):
        if name not in ALWAYS_THERE and not mentions(preamble, name):
            missing.append(f"linkscope-cli {name}: not named before the first command's section")
    commands = command_names(top)
    if not commands:
        missing.append("`linkscope-cli --help` lists no command: the help's layout is not the one this check reads")
    for command in commands:
        if command not in documented:
            missing.append(f"linkscope-cli {command}: no section `## {command}`")
            continue
        text = help_text(args.cli, command)
        if text is None:
            print(f"check_cli_docs: linkscope-cli {command}: options not checked: this build has no dense "
                  "engine (LibTorch)", file=sys.stderr)
            continue
        options = option_names(text)
        for name in options:
            if name not in ALWAYS_THERE and not mentions(documented[command], name):
                missing.append(f"linkscope-cli {command} {name}: not named in the section `## {command}`")

    if missing:
        print(f"{args.doc} does not describe everything linkscope-cli's help names:", file=sys.stderr)
        for line in missing:
            print(f"  {line}", file=sys.stderr)
        return 1
    print(f"{args.doc}: {len(commands)} commands, every option named")
    return 0


if __name__ == "__main__":
    sys.exit(main())
