"""``python -m booktools <command> [arguments]``: the book's tools on one command line.

Each command runs one module's ``main`` with the arguments that follow it (``python -m
booktools pdf --language ko`` is ``python -m booktools.build.pdf --language ko``); the
Makefile's targets call these.  A module is imported only when its command runs, so
``python -m booktools pth`` works before anything but the interpreter is installed.
``python -m booktools`` alone lists the commands.
"""

from __future__ import annotations

import importlib
import sys

__all__ = ["COMMANDS", "main"]

#: command -> (module whose ``main`` runs it, arguments put before the user's, what it does)
COMMANDS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "pth": ("booktools.pth", (), "make booktools importable in this environment"),
    "prebuild": (
        "booktools.build.prebuild",
        (),
        "execute the changed chapters into the cache",
    ),
    "pdf": ("booktools.build.pdf", (), "the book as PDF, English and Korean"),
    "slides": ("booktools.build.slides", (), "the slide decks of every chapter"),
    "check": ("booktools.build.check", (), "checks on the built HTML book"),
    "chapter": ("booktools.build.chapter", (), "build a few chapters on their own"),
    "notebooks": ("booktools.build.notebooks", (), "the chapters as Colab notebooks"),
    "dist": ("booktools.build.dist", (), "the offline zip of the built book"),
    "i18n": (
        "booktools.i18n",
        (),
        "the Korean edition: pot, update, outputs, build, ...",
    ),
    "glosses": ("booktools.i18n.glosses", (), "the Korean gloss policy: check, fix"),
    "assign": ("booktools.course.cli", (), "otter assignments from the chapters"),
    "grade": ("booktools.course.cli", ("grade",), "grade submissions into a CSV"),
    "answer-keys": ("booktools.course.answer_keys", (), "the instructors' answer keys"),
    "student": ("booktools.course.student", (), "the student edition of the book"),
    "leak-scan": ("booktools.course.leak_scan", (), "solutions in student files"),
    "otter": ("booktools.course.otter_cli", (), "otter's command line, patched"),
    "lab": ("booktools.lab.lab", (), "JupyterLab on the repository"),
    "live": ("booktools.lab.live", (), "the built book with live code"),
}


def usage() -> str:
    """The list of commands, one line each."""
    width = max(map(len, COMMANDS))
    lines = [f"  {name:<{width}}  {what}" for name, (_, _, what) in COMMANDS.items()]
    return (
        "usage: python -m booktools <command> [arguments]\n\ncommands:\n"
        + "\n".join(lines)
    )


def main(argv: list[str] | None = None) -> int:
    """Run the command that ``argv`` names (default: ``sys.argv[1:]``); its exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command not in COMMANDS:
        print(
            f"python -m booktools: command: expected one of {', '.join(COMMANDS)}; "
            f"got {command!r}",
            file=sys.stderr,
        )
        return 2
    module, before, _ = COMMANDS[command]
    # argparse names the program after sys.argv[0]: the command as typed
    program, sys.argv[0] = sys.argv[0], f"python -m booktools {command}"
    try:
        status = importlib.import_module(module).main([*before, *rest])
    finally:
        sys.argv[0] = program
    return status if isinstance(status, int) else 0


if __name__ == "__main__":
    sys.exit(main())
