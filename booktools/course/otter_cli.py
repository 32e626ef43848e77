"""``otter`` with the book's kernel-client settings: ``python -m booktools otter run …``.

``otter run`` executes a submission with nbconvert's ``ExecutePreprocessor``, which waits for each
cell's reply without a time limit.  A reply whose wake-up is missed (the race that
:mod:`booktools.sphinx.kernel_client` describes: a widget cell's burst of messages, a busy
machine) then leaves the grading waiting for ever.  This entry point installs
:func:`~booktools.sphinx.kernel_client.patch_shell_wait` first, so that such a reply is picked up
within a second, and then hands the arguments to otter's own command line unchanged.
:func:`booktools.course.grading.grade` runs otter this way.
"""

from __future__ import annotations

from booktools.sphinx.kernel_client import patch_shell_wait

__all__ = ["main"]


def main(argv: list[str] | None = None) -> None:
    """Run otter's command line (``otter.cli.cli``) on ``argv`` (default: ``sys.argv[1:]``) with
    replies awaited in slices; exits with otter's status, as the ``otter`` command does."""
    from otter.cli import cli

    patch_shell_wait()
    cli.main(args=argv, prog_name="otter")


if __name__ == "__main__":
    main()
