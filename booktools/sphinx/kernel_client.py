"""Wait for a kernel's replies in short slices, so that a missed wake-up costs a second, not the
whole cell timeout.

The stall this fixes: executing chapter 1 in a fresh kernel on a busy machine, the cell
``widgets.gradient_descent_widget()`` twice waited out its whole timeout (900 s, then 60 s) while
other runs took 0.3 s.  A widget cell is the kind of cell that sends a burst of messages on the
IOPub channel (one ``comm_open`` per control, layout and output) while the client waits for the
``execute_reply`` on the shell channel.  ``jupyter_client``'s asynchronous ``get_msg(timeout)``
makes a single ``await socket.poll(timeout)``: the reply is woken up through pyzmq's
edge-triggered ``ZMQ_FD``, and when that edge is consumed without the waiting poll being
notified (the race reported for widget cells in jupyter/nbclient#312, and on the kernel's side
of the same socket pair in ipython/ipykernel#1529), the reply sits in the socket's queue until
the timeout expires, and the cell is reported as timed out although the kernel is idle.

Observed here (chapter 1's student notebook executed in fresh kernels with a 60 s timeout and
jupyter_client's own ``get_msg``, on the shared 2-core machine): in 1 of 30 runs the widget
cell took 60.0 s while every other run took under 5 s (with this patch: 0 of 15 runs); a ``faulthandler`` dump of the kernel taken
50 s into that cell showed every kernel thread idle in its event loop (the cell had finished),
and the cell still ended without a timeout error, at 60.0 s: the reply had been waiting in the
client's socket, and only the final zero-timeout check of the expiring poll found it.

:func:`patch_shell_wait` makes ``get_msg`` poll in slices of at most :data:`SLICE_S` seconds up
to the same deadline: each new poll first checks the socket's queue (its ``ZMQ_EVENTS``; an
expiring poll makes a zero-timeout ``zmq_poll``), so a missed wake-up is recovered within a
slice.  Replies that arrive normally are returned as before, as soon as they arrive.  It is
installed

* in the Sphinx process that executes the chapters for ``make book`` (this module is a Sphinx
  extension listed in ``_config.yml``), and
* in the test processes (``tests/conftest.py``), which execute chapters and notebooks with
  nbclient.

``make book`` records each cell's time (booktools/build/prebuild.py), and
``tests/test_widget_cells.py`` fails when a chapter's widget cell took a minute or more.

:func:`shut_down_immediately` is the other setting both places share: once a notebook's last
cell has replied, its kernel is stopped at once instead of asked to exit.  nbclient's default
("graceful") sends a shutdown request and waits for the kernel's interpreter to tear down its
modules, which takes about 1.3 s for a chapter that imported torch and transformers (chapter 16:
5.4 s graceful, 4.1 s immediate, on the 2-core machine), and the chapters are executed one after
the other.  Nothing is lost: every output has arrived before the kernel stops, and a chapter's
files are written by cells that have finished.

:func:`encrypt_transport` is the third: the kernel's sockets use CurveZMQ encryption, with keys
that the kernel manager makes for each kernel (``transport_encryption = "auto"`` of
``jupyter_client``, which the ``python3`` kernelspec of ipykernel declares it supports).  Left
at its default (``"disabled"``), every kernel prints "Kernel is running over TCP without
encryption" on the build's stderr, 26 times in one ``make book``; here the warning's cause goes
away instead of the warning being filtered, so every other kernel warning still shows.
"""

from __future__ import annotations

import time
from typing import Any

__all__ = [
    "SLICE_S",
    "encrypt_transport",
    "install",
    "keep_late_outputs",
    "IOPUB_WAIT_S",
    "patch_shell_wait",
    "shut_down_immediately",
    "sliced_get_msg",
    "setup",
]

#: Longest single wait on a socket; a missed wake-up is noticed after at most this long.
SLICE_S = 1.0

_PATCHED = "_formulated_sliced_get_msg"


async def sliced_get_msg(
    channel: Any, timeout: float | None = None, slice_s: float = SLICE_S
) -> dict[str, Any]:
    """``channel.get_msg(timeout)`` of jupyter_client's async channels, polling in slices.

    ``timeout`` in seconds (``None``: wait for ever); raises :class:`queue.Empty` at the deadline
    like the original.
    """
    from queue import Empty

    if slice_s <= 0:
        raise ValueError(
            f"slice_s: expected a positive number of seconds, got {slice_s!r}"
        )
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        wait = (
            slice_s
            if deadline is None
            else max(0.0, min(slice_s, deadline - time.monotonic()))
        )
        if await channel.socket.poll(int(wait * 1000)):
            return await channel._recv()  # noqa: SLF001 - the original get_msg's own receive
        if deadline is not None and time.monotonic() >= deadline:
            raise Empty


def patch_shell_wait(slice_s: float = SLICE_S) -> bool:
    """Install :func:`sliced_get_msg` as ``AsyncZMQSocketChannel.get_msg`` (the class behind
    every asynchronous kernel client's shell, IOPub and stdin channels).  Idempotent; returns
    True when it installed the patch now, False when it was already installed."""
    from jupyter_client.channels import AsyncZMQSocketChannel

    if getattr(AsyncZMQSocketChannel.get_msg, _PATCHED, False):
        return False

    async def get_msg(self: Any, timeout: float | None = None) -> dict[str, Any]:
        return await sliced_get_msg(self, timeout, slice_s)

    get_msg.__doc__ = sliced_get_msg.__doc__
    get_msg.__wrapped__ = (
        AsyncZMQSocketChannel.get_msg
    )  # the original, kept for comparison
    setattr(get_msg, _PATCHED, True)
    AsyncZMQSocketChannel.get_msg = get_msg
    return True


def shut_down_immediately() -> None:
    """Make ``"immediate"`` the default of ``nbclient.NotebookClient.shutdown_kernel`` (a client
    that passes ``shutdown_kernel=`` still gets its own choice).  Myst-NB's executor creates its
    clients without a configuration, so the trait's default is the one place to set it."""
    from nbclient import NotebookClient

    NotebookClient.shutdown_kernel.default_value = "immediate"


#: Seconds a client waits, after a cell's reply, for the outputs still on their way (nbclient: 4).
IOPUB_WAIT_S = 120


def keep_late_outputs(seconds: int = IOPUB_WAIT_S) -> None:
    """Wait up to ``seconds`` (not nbclient's 4) for a cell's outputs after its reply, and fail
    the cell if they still have not come.  nbclient's default logs "Timeout waiting for IOPub
    output" and goes on without them: on a loaded 2-core machine a chapter's figure was lost
    from the execution cache that way, silently, and both editions showed the page without it.
    The wait ends as soon as the kernel reports idle, so a normal cell waits no longer."""
    from nbclient import NotebookClient

    if seconds <= 0:
        raise ValueError(f"seconds: expected a positive number, got {seconds!r}")
    # Set per client: traitlets keeps a class-level copy of immutable defaults, so changing
    # the trait's default_value (as for shutdown_kernel) does not reach an int or a bool.
    init = getattr(NotebookClient.__init__, "__wrapped__", NotebookClient.__init__)

    def __init__(self: Any, nb: Any, km: Any = None, **kw: Any) -> None:
        kw.setdefault("iopub_timeout", seconds)
        kw.setdefault("raise_on_iopub_timeout", True)
        init(self, nb, km, **kw)

    __init__.__wrapped__ = init
    NotebookClient.__init__ = __init__


def encrypt_transport() -> None:
    """Make ``"auto"`` the default of ``jupyter_client.KernelManager.transport_encryption``: a
    kernel whose kernelspec declares CurveZMQ support (ipykernel's does) gets a key pair from its
    manager and encrypts its sockets, so it no longer warns that it runs over TCP in plain text.
    As for :func:`shut_down_immediately`, Myst-NB and nbclient create their kernel managers
    without a configuration, so the trait's default is the one place to set it; a kernelspec
    without Curve support runs unencrypted as before (``"auto"``, not ``"required"``)."""
    import zmq
    from jupyter_client.manager import KernelManager

    if zmq.has(
        "curve"
    ):  # pyzmq's wheels bundle libsodium; a build without it keeps TCP
        KernelManager.transport_encryption.default_value = "auto"


def install() -> None:
    """The settings of this module, in every process that executes the book's notebooks (the
    Sphinx build, ``make book``'s prebuild workers, the tests); idempotent."""
    patch_shell_wait()
    shut_down_immediately()
    keep_late_outputs()
    encrypt_transport()


def setup(app: Any) -> dict[str, Any]:
    """Sphinx extension: the chapters that ``make book`` executes wait in slices too, their
    kernels stop as soon as the last cell has replied, and their sockets are encrypted."""
    install()
    return {"parallel_read_safe": True, "parallel_write_safe": True}
