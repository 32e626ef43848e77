"""``make live``: the built book with live widgets, from a local Jupyter server.

Starts a Jupyter server on 127.0.0.1 with this Python (the project's environment, so its
``python3`` kernel imports :mod:`formulated`), serves ``_build/html`` over http on 127.0.0.1 and
prints the one URL to open. Each HTML page it serves carries the server's address and token
(``window.FORMULATED_LIVE_SERVER``), so the page's "Live Code" button
(``_static/live/formulated-live.js``) connects Thebe to this server instead of Binder. The Jupyter
server accepts the book's origin only (CORS) and requires the random token. Ctrl-C stops both.

Usage: ``python -m booktools live [--book _build/html] [--port 0] [--jupyter-port 0]``
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from booktools.paths import HTML, ROOT


@dataclass(frozen=True)
class Kernel:
    """Where the pages find the Jupyter server (the JSON given to the page)."""

    base_url: str
    ws_url: str
    token: str

    def script(self) -> bytes:
        """The ``<script>`` put into each served page."""
        data = json.dumps(
            {"baseUrl": self.base_url, "wsUrl": self.ws_url, "token": self.token}
        )
        return f"<script>window.FORMULATED_LIVE_SERVER = {data};</script>".encode()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class BookHandler(http.server.SimpleHTTPRequestHandler):
    """Static files of the book; HTML pages get the kernel script before ``</head>``."""

    kernel: Kernel

    def send_head(self):  # type: ignore[no-untyped-def]
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if path.suffix != ".html" or not path.is_file():
            return super().send_head()
        body = path.read_bytes().replace(
            b"</head>", self.kernel.script() + b"</head>", 1
        )
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        return _BytesFile(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        """Quiet: the terminal shows the URL and errors only."""


class _BytesFile:
    """The minimal file object ``SimpleHTTPRequestHandler.do_GET`` copies from."""

    def __init__(self, data: bytes) -> None:
        self._data, self._done = data, False

    def read(self, size: int = -1) -> bytes:
        if self._done:
            return b""
        self._done = True
        return self._data

    def close(self) -> None:
        self._done = True


def start_jupyter(
    port: int, token: str, origin: str, root_dir: Path, log: Path
) -> subprocess.Popen[bytes]:
    """A Jupyter server in its own process group (so Ctrl-C reaches this process, which stops it
    without the server's interactive 'Shutdown?' prompt); its log goes to ``log``."""
    command = [
        sys.executable,
        "-m",
        "jupyter_server",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.allow_origin={origin}",
        "--ServerApp.open_browser=False",
        f"--ServerApp.root_dir={root_dir}",
        "--ServerApp.allow_remote_access=False",
        "--ServerApp.allow_root=True",  # containers and CI run as root; the server is local only
        # Only kernels are needed; the plain contents manager, whatever `make lab` configured.
        "--ServerApp.contents_manager_class="
        "jupyter_server.services.contents.largefilemanager.AsyncLargeFileManager",
    ]
    # Kernels draw figures with the inline backend; an inherited MPLBACKEND (Agg in the test
    # suite, or a reader's shell) would make every widget's figure silently vanish.
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    # Its kernels inherit this: a chapter may take a shortcut when live (chapter 18 loads the
    # book preset's shipped run instead of training it again, unless the reader asks to).
    from formulated.training.shipped import (
        LIVE_ENV,  # imports torch: only when starting
    )

    env[LIVE_ENV] = "1"
    with open(
        log, "wb"
    ) as sink:  # a file, not a pipe: an unread pipe would block the server
        return subprocess.Popen(
            command,
            cwd=root_dir,
            env=env,
            start_new_session=True,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )


def wait_until_ready(
    kernel: Kernel, process: subprocess.Popen[bytes], log: Path, timeout: float
) -> None:
    """Poll the server's status API until it answers; raise with its log if it died."""
    deadline = time.monotonic() + timeout
    url = f"{kernel.base_url}api/status?token={kernel.token}"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"the Jupyter server exited with code {process.returncode}:\n"
                + log.read_text(errors="replace")[-4000:]
            )
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(
        f"the Jupyter server did not answer at {kernel.base_url} within {timeout} s"
    )


def stop(process: subprocess.Popen[bytes], timeout: float = 15.0) -> None:
    """SIGTERM (the server shuts its kernels down), then SIGKILL if it hangs."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


class LiveBook:
    """The two servers; a context manager so tests can run it without ``make``."""

    def __init__(self, book: Path = HTML, port: int = 0, jupyter_port: int = 0) -> None:
        if not (book / "index.html").is_file():
            raise FileNotFoundError(f"no built book at {book}: run `make book` first")
        self.book = book
        self.port = port or free_port()
        self.jupyter_port = jupyter_port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        jupyter = f"127.0.0.1:{self.jupyter_port}/"
        self.kernel = Kernel(
            f"http://{jupyter}", f"ws://{jupyter}", secrets.token_hex(24)
        )
        self.log = (
            Path(tempfile.gettempdir())
            / f"formulated-live-jupyter-{self.jupyter_port}.log"
        )
        self.process: subprocess.Popen[bytes] | None = None
        self.httpd: http.server.ThreadingHTTPServer | None = None

    def __enter__(self) -> "LiveBook":
        self.process = start_jupyter(
            self.jupyter_port, self.kernel.token, self.url.rstrip("/"), ROOT, self.log
        )
        try:
            wait_until_ready(self.kernel, self.process, self.log, timeout=60)
            handler = type("Handler", (BookHandler,), {"kernel": self.kernel})
            self.httpd = http.server.ThreadingHTTPServer(
                ("127.0.0.1", self.port),
                functools.partial(handler, directory=str(self.book)),
            )
            threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        except BaseException:
            stop(self.process)
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()
        if self.process is not None:
            stop(self.process)


def main(argv: list[str] | None = None) -> int:
    """Run until Ctrl-C; print the one URL to open."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--book", type=Path, default=HTML, help="built HTML book")
    parser.add_argument(
        "--port", type=int, default=0, help="port of the book (0: any free)"
    )
    parser.add_argument(
        "--jupyter-port", type=int, default=0, help="port of the Jupyter server"
    )
    args = parser.parse_args(argv)
    try:
        live = LiveBook(args.book, args.port, args.jupyter_port)
    except FileNotFoundError as err:
        print(f"make live: {err}", file=sys.stderr)
        return 2

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    # Ctrl-C and a plain `kill` both stop cleanly (also where SIGINT came in ignored, as in a
    # shell's background job).
    signal.signal(signal.SIGINT, interrupt)
    signal.signal(signal.SIGTERM, interrupt)
    with live:
        print(
            f"Open {live.url}  On any chapter, the rocket menu -> Live Code runs its cells "
            "here and makes its widgets live. Ctrl-C stops the book and its Jupyter server.",
            flush=True,
        )
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            print("\nmake live: stopping ...", flush=True)
    print("make live: stopped.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
