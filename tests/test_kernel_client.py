"""booktools.sphinx.kernel_client: a reply whose wake-up was missed is still received in time."""

from __future__ import annotations

import asyncio
import time
from queue import Empty

import pytest

from booktools.sphinx import kernel_client


class MissedWakeUpSocket:
    """A socket whose first poll misses the reply already queued (sleeps out its timeout and
    reports nothing); a new poll sees it at once, as zmq_poll does for a queued message."""

    def __init__(self) -> None:
        self.polls: list[float] = []

    async def poll(self, timeout_ms: int | None) -> int:
        self.polls.append(timeout_ms)
        if len(self.polls) == 1:
            await asyncio.sleep((timeout_ms or 0) / 1000)
            return 0
        return 1


class Channel:
    def __init__(self, socket) -> None:
        self.socket = socket

    async def _recv(self) -> dict:
        return {"msg_type": "execute_reply"}


def test_missed_wake_up_costs_one_slice():
    channel = Channel(MissedWakeUpSocket())
    start = time.monotonic()
    msg = asyncio.run(kernel_client.sliced_get_msg(channel, timeout=30, slice_s=0.2))
    assert msg["msg_type"] == "execute_reply"
    assert time.monotonic() - start < 5
    assert channel.socket.polls == [200, 200]


def test_the_original_get_msg_waits_out_the_whole_timeout():
    """The control: jupyter_client's own single poll reports nothing until the deadline."""
    from jupyter_client.channels import AsyncZMQSocketChannel

    original = AsyncZMQSocketChannel.get_msg
    original = getattr(
        original, "__wrapped__", original
    )  # conftest.py installs the patch
    channel = Channel(MissedWakeUpSocket())
    start = time.monotonic()
    with pytest.raises(Empty):
        asyncio.run(original(channel, timeout=1.0))
    assert time.monotonic() - start >= 0.9


def test_deadline_still_raises_empty():
    class Silent:
        async def poll(self, timeout_ms):
            await asyncio.sleep((timeout_ms or 0) / 1000)
            return 0

    start = time.monotonic()
    with pytest.raises(Empty):
        asyncio.run(
            kernel_client.sliced_get_msg(Channel(Silent()), timeout=0.5, slice_s=0.2)
        )
    assert 0.45 <= time.monotonic() - start < 3


def test_bad_slice_is_a_clear_error():
    with pytest.raises(ValueError, match="slice_s"):
        asyncio.run(
            kernel_client.sliced_get_msg(Channel(MissedWakeUpSocket()), 1, slice_s=0)
        )


def test_patch_is_installed_once():
    from jupyter_client.channels import AsyncZMQSocketChannel

    kernel_client.patch_shell_wait()
    assert kernel_client.patch_shell_wait() is False
    assert getattr(AsyncZMQSocketChannel.get_msg, kernel_client._PATCHED)  # noqa: SLF001


def test_kernels_stop_immediately_unless_a_client_asks_otherwise():
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    kernel_client.shut_down_immediately()  # conftest has installed it already: idempotent
    assert NotebookClient(nb).shutdown_kernel == "immediate"
    assert NotebookClient(nb, shutdown_kernel="graceful").shutdown_kernel == "graceful"


def test_a_late_output_is_waited_for_and_never_dropped_silently():
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    for _ in range(2):  # conftest installed it; installing it again changes nothing
        client = NotebookClient(nb)
        assert client.iopub_timeout == kernel_client.IOPUB_WAIT_S > 4
        assert client.raise_on_iopub_timeout is True
        kernel_client.keep_late_outputs()
    assert (
        NotebookClient(nb, iopub_timeout=7).iopub_timeout == 7
    )  # a client's own choice
    with pytest.raises(ValueError, match="seconds"):
        kernel_client.keep_late_outputs(0)


def test_an_executed_notebook_keeps_every_output_when_its_kernel_is_killed():
    """The last cell's output (printed just before the end) arrives before the kill."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell("import time"),
            nbformat.v4.new_code_cell(
                "for i in range(3):\n    print(i, flush=True)\n"
                "time.sleep(0.05)\nprint('last')"
            ),
        ]
    )
    NotebookClient(nb, timeout=60, kernel_name="python3").execute()
    assert "".join(o["text"] for o in nb.cells[1].outputs) == "0\n1\n2\nlast\n"


# A kernel started the book's way (nbclient, as Myst-NB and booktools.build.prebuild start them, with
# this module installed), in a process of its own so that the kernel's stderr can be read; the
# cell reports whether the kernel holds a CurveZMQ key (its sockets are then encrypted).
KERNEL_RUN = """
import nbformat
from nbclient import NotebookClient
from booktools.sphinx import kernel_client
kernel_client.install()
nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
    "from ipykernel.kernelapp import IPKernelApp\\n"
    "print('curve', IPKernelApp.instance().curve_secretkey is not None, 6 * 7)")])
NotebookClient(nb, timeout=60, kernel_name="python3").execute()
print(nb.cells[0].outputs[0]["text"], end="")
"""


@pytest.mark.slow  # starts kernels
def test_a_kernel_started_the_books_way_is_encrypted_and_does_not_warn():
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-c", KERNEL_RUN],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "without encryption" not in run.stderr, run.stderr
    assert run.stdout == "curve True 42\n"
