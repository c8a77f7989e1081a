"""The example nginx configuration (docs/deploy/nginx.conf), run by a real nginx in front of a
server started with ``--trusted-proxies``: real clients play through it over TLS, at the root and
under its ``/boardhall/`` prefix, the server sees each player's own address, and the game's
record and ``/healthz`` are read through it. Skipped only where nginx is not installed."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pwd
import re
import shutil
import signal
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest
import trustme
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from client.app import App
from client.config import Config
from client.local import EmbeddedServer
from client.scenes.connect import ConnectScene
from client.scenes.lobby import LobbyScene
from server.config import ServerConfig
from server.proxies import parse_networks
from server.pushconn import OVER_LIMIT_TEXT
from server.testing import WireClient
from tests.client.helpers import arrived, first_move_at_a_table, pump, room_of

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "deploy" / "nginx.conf"

NGINX = shutil.which("nginx", path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin"]))

pytestmark = pytest.mark.skipif(
    NGINX is None, reason="nginx is not installed (Debian: apt-get install nginx)"
)

PROXY = "127.0.0.2"
"""The address nginx connects to the server from (``proxy_bind``): the one trusted proxy. The
players connect to nginx from 127.0.0.1 (and one from 127.0.0.3), so an address the server sees
can only be theirs if nginx forwarded it."""

T = TypeVar("T")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def render(example: str, listen: int, upstream: int, cert: Path, key: Path) -> str:
    """``example`` with the test's ports and certificate in place of the operator's (each one
    asserted found, so the test follows the file)."""
    swaps = [
        ("listen 443 ssl;", f"listen 127.0.0.1:{listen} ssl;"),
        ("listen [::]:443 ssl;", ""),
        ("server 127.0.0.1:8765;", f"server 127.0.0.1:{upstream};"),
        ("/etc/letsencrypt/live/play.example.org/fullchain.pem", str(cert)),
        ("/etc/letsencrypt/live/play.example.org/privkey.pem", str(key)),
    ]
    for old, new in swaps:
        assert example.count(old) == 1, f"{old!r} is no longer in {EXAMPLE}"
        example = example.replace(old, new)
    return example


def main_config(prefix: Path, site: Path) -> str:
    """An nginx.conf around the site file: every path in the test's own directory."""
    user = pwd.getpwuid(os.getuid()).pw_name  # workers as this user (root: not as nobody)
    temps = "\n".join(
        f"    {kind}_temp_path {prefix / kind};" for kind in ("client_body", "proxy", "fastcgi",
                                                             "uwsgi", "scgi")
    )  # fmt: skip
    return f"""user {user};
worker_processes 1;
pid {prefix / "nginx.pid"};
error_log {prefix / "error.log"} info;
events {{ worker_connections 64; }}
http {{
    access_log {prefix / "access.log"};
{temps}
    proxy_bind {PROXY};
    include {site};
}}
"""


@contextlib.contextmanager
def running_nginx(tmp_path: Path, upstream: int, cert: Path, key: Path) -> Iterator[int]:
    """nginx in the foreground with the example site in front of ``upstream``; yields the port
    it serves TLS on. Stopped (its whole process group, if it does not stop) at the end."""
    assert NGINX is not None
    prefix = tmp_path / "nginx"
    prefix.mkdir()
    port = _free_port()
    site = prefix / "boardhall.conf"
    site.write_text(render(EXAMPLE.read_text(), port, upstream, cert, key))
    conf = prefix / "nginx.conf"
    conf.write_text(main_config(prefix, site))
    command = [NGINX, "-p", f"{prefix}/", "-c", str(conf), "-e", str(prefix / "error.log")]
    checked = subprocess.run([*command, "-t"], capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0, checked.stderr
    process = subprocess.Popen(
        [*command, "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        _until(lambda: _accepts(port) or process.poll() is not None)
        if process.poll() is not None:
            log = (prefix / "error.log").read_text(errors="replace")
            pytest.fail(f"nginx exited ({process.returncode}): {log}")
        yield port
    finally:
        process.terminate()  # a fast shutdown: the workers end with the master
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)
        if process.stderr is not None:
            process.stderr.close()


def _accepts(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def _until(condition: Callable[[], object], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def on_server(embedded: EmbeddedServer, read: Callable[[Any], T]) -> T:
    """``read(server)`` on the server's own thread (its dicts change there)."""
    assert embedded.loop is not None

    async def call() -> T:
        return read(embedded.server)

    return asyncio.run_coroutine_threadsafe(call(), embedded.loop).result(10)


def _sessions(server: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for session in server.hall.sessions.values():
        counts[session.address] = counts.get(session.address, 0) + 1
    return counts


def _get(url: str, context: ssl.SSLContext) -> tuple[int, dict[str, Any]]:
    with urllib.request.urlopen(url, timeout=10, context=context) as response:
        return response.status, json.loads(response.read())


def _app(tmp_path: Path, name: str, url: str, context: ssl.SSLContext) -> App:
    app = App(Config(path=tmp_path / f"{name}.json"), headless=True)
    app.ssl_context = context
    scene = ConnectScene(app, url, name)
    app.push(scene)
    scene.submit()
    return app


def test_the_example_config_has_nginx_wait_longer_than_the_server_s_silences() -> None:
    """nginx closes a proxied connection silent for proxy_read_timeout (60 s by default); the
    server pings every 10 s and drops a client silent for 20 s: nginx must wait longer."""
    text = EXAMPLE.read_text()
    for directive in ("proxy_read_timeout", "proxy_send_timeout"):
        found = re.search(rf"^\s*{directive}\s+(\d+)s;", text, re.MULTILINE)
        assert found is not None and int(found.group(1)) > 20, directive
    for header in ("Upgrade $http_upgrade", "X-Forwarded-For $proxy_add_x_forwarded_for"):
        assert f"proxy_set_header {header};" in text


def certificate(tmp_path: Path) -> tuple[Path, Path, ssl.SSLContext]:
    """A certificate for 127.0.0.1 from a test CA: its chain and key files, and a client
    context that trusts it."""
    ca = trustme.CA()
    issued = ca.issue_cert("127.0.0.1")
    cert, key = tmp_path / "fullchain.pem", tmp_path / "privkey.pem"
    issued.cert_chain_pems[0].write_to_path(str(cert))
    for more in issued.cert_chain_pems[1:]:
        with cert.open("ab") as chain:
            chain.write(more.bytes())
    issued.private_key_pem.write_to_path(str(key))
    trusting = ssl.create_default_context()
    ca.configure_trust(trusting)
    return cert, key, trusting


def test_a_player_over_the_handshake_limit_reads_why_through_nginx(tmp_path: Path) -> None:
    """A player (127.0.0.1, as nginx forwards it) with --connections-per-address handshakes
    still going gets the server's 429 and its one-line reason through nginx, for a record and
    for a WebSocket upgrade alike. Before, the server closed such a request without answering
    and nginx made it a 502 Bad Gateway."""
    cert, key, trusting = certificate(tmp_path)
    config = ServerConfig(trusted_proxies=parse_networks(PROXY), connections_per_address=1)
    embedded = EmbeddedServer(config=config).start()
    try:
        server = embedded.server
        gate = on_server(embedded, lambda _server: asyncio.Event())
        answer = server._http_answer

        async def held(request: Any) -> Any:
            await gate.wait()
            return await answer(request)

        server._http_answer = held
        with running_nginx(tmp_path, server.port, cert, key) as port:
            base = f"https://127.0.0.1:{port}"
            with ThreadPoolExecutor(1) as pool:
                first = pool.submit(_get, f"{base}/healthz", trusting)  # held: one handshake
                _until(lambda: on_server(embedded, lambda s: s.handshakes.get("127.0.0.1")))
                with pytest.raises(urllib.error.HTTPError) as over:
                    _get(f"{base}/healthz", trusting)
                assert over.value.code == 429
                assert over.value.read().decode() == OVER_LIMIT_TEXT

                async def upgrade() -> None:
                    await connect(f"wss://127.0.0.1:{port}/", ssl=trusting)

                with pytest.raises(InvalidStatus) as refused:
                    asyncio.run(upgrade())
                assert refused.value.response.status_code == 429
                assert refused.value.response.body == OVER_LIMIT_TEXT.encode()
                assert embedded.loop is not None
                embedded.loop.call_soon_threadsafe(gate.set)
                assert first.result(10)[0] == 200
    finally:
        embedded.stop()


def test_players_behind_nginx_play_and_read_records_at_the_root_and_under_a_prefix(
    tmp_path: Path,
) -> None:
    cert, key, trusting = certificate(tmp_path)

    config = ServerConfig(trusted_proxies=parse_networks(PROXY), connections_per_address=3)
    embedded = EmbeddedServer(config=config).start()
    apps: list[App] = []
    try:
        with running_nginx(tmp_path, embedded.server.port, cert, key) as port:
            root, prefixed = f"wss://127.0.0.1:{port}/", f"wss://127.0.0.1:{port}/boardhall/"
            alice = _app(tmp_path, "Alice", root, trusting)
            bob = _app(tmp_path, "Bob", prefixed, trusting)
            apps += [alice, bob]
            pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
            first_move_at_a_table(alice, bob)  # Alice's move reaches Bob through nginx
            assert room_of(bob).model.moves == ["0,0"]
            # their own address (nginx's peer), not nginx's 127.0.0.2 for everyone
            assert on_server(embedded, _sessions) == {"127.0.0.1": 2}

            # a client that sends its own X-Forwarded-For is not believed: nginx appends the
            # address it saw, and that is the one read
            async def spoofer() -> dict[str, int]:
                ws = await connect(
                    root,
                    ssl=trusting,
                    local_addr=("127.0.0.3", 0),
                    additional_headers={"X-Forwarded-For": "198.51.100.66"},
                )
                wire = WireClient(ws)
                try:
                    await wire.request(type="hello", name="Mallory", protocol=1)
                    return on_server(embedded, _sessions)
                finally:
                    await wire.close()

            assert asyncio.run(spoofer()) == {"127.0.0.1": 2, "127.0.0.3": 1}

            for base in (f"https://127.0.0.1:{port}", f"https://127.0.0.1:{port}/boardhall"):
                status, health = _get(f"{base}/healthz", trusting)
                assert (status, health["status"]) == (200, "ok")
            # the record, read as the client reads it (Bob's under the prefix)
            game_id = room_of(alice).model.game_id
            fetches = [app.record_fetch(game_id) for app in apps]
            assert [fetch.url for fetch in fetches] == [
                f"https://127.0.0.1:{port}/games/{game_id}?format=json",
                f"https://127.0.0.1:{port}/boardhall/games/{game_id}?format=json",
            ]
            for fetch in fetches:
                record = arrived(fetch)
                assert isinstance(record, dict), record
                assert record["moves"] == ["0,0"]
    finally:
        for app in apps:
            app.disconnect()
        embedded.stop()
