"""The Docker files, checked without a Docker engine.

``docker-compose`` v1 (Debian package ``docker-compose``) renders the compose file with
``docker-compose -f FILE config`` without an engine and validates it against the compose spec
JSON schema it ships (``compose/config/compose_spec.json``); the tests also validate the file
against that schema directly with ``jsonschema`` in the tool's own Python, assert the structure
(service, port, volume, healthcheck), and run the healthcheck command against a real server
started as the image starts it, on another port than 8765 set only by ``BOARDHALL_PORT``.
A broken compose file must be refused (so the checks can fail).
"""

from __future__ import annotations

import asyncio
import fnmatch
import json
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trustme

from bench import harness
from server.testing import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
TOOL = shutil.which("docker-compose")

needs_tool = pytest.mark.skipif(
    TOOL is None,
    reason="docker-compose (v1) is not installed: `apt-get install -y docker-compose` "
    "(Debian package docker-compose) to validate the compose file without an engine",
)

SCHEMA_CHECK = """
import glob, json, os, sys
import compose, jsonschema, yaml
schema = json.load(open(os.path.join(os.path.dirname(compose.__file__), "config",
                                     "compose_spec.json")))
data = yaml.safe_load(open(sys.argv[1]))
errors = sorted(e.message for e in jsonschema.Draft7Validator(schema).iter_errors(data))
print(json.dumps({"errors": errors, "data": data}))
"""


def _tool_python() -> str:
    """The interpreter docker-compose runs on (it has yaml, jsonschema and the schema)."""
    assert TOOL is not None
    first = Path(TOOL).read_text(errors="replace").splitlines()[0]
    return first[2:].strip().split()[0] if first.startswith("#!") else "python3"


def _config(path: Path, port: str | None = None) -> subprocess.CompletedProcess[str]:
    """``docker-compose config`` of ``path``, with ``BOARDHALL_PORT`` set to ``port`` (unset
    without it) in the environment it interpolates from."""
    env = {k: v for k, v in os.environ.items() if k != "BOARDHALL_PORT"}
    if port is not None:
        env["BOARDHALL_PORT"] = port
    return subprocess.run(
        [str(TOOL), "-f", str(path), "config"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=path.parent,
        env=env,
    )


def _schema(path: Path) -> dict[str, Any]:
    done = subprocess.run(
        [_tool_python(), "-c", SCHEMA_CHECK, str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    found: dict[str, Any] = json.loads(done.stdout)
    return found


@needs_tool
def test_compose_config_renders_without_an_engine() -> None:
    """``docker-compose -f docker-compose.yml config`` accepts the file."""
    done = _config(COMPOSE)
    assert done.returncode == 0, done.stderr
    assert "boardhall" in done.stdout and "8765" in done.stdout


@needs_tool
def test_compose_file_matches_the_compose_spec_schema() -> None:
    """No error against compose_spec.json (the schema docker-compose ships)."""
    checked = _schema(COMPOSE)
    assert checked["errors"] == []


PORT = "${BOARDHALL_PORT:-8765}"
"""The compose file's port: BOARDHALL_PORT from the shell or a .env file, else 8765."""

HEALTHCHECK = ["CMD", "python", "-m", "server.healthcheck"]
"""The healthcheck of both files: ``GET /healthz`` on BOARDHALL_PORT (server/healthcheck.py)."""


@needs_tool
def test_compose_structure_service_port_volume_healthcheck() -> None:
    """One server service on BOARDHALL_PORT (8765 by default), published as itself and given
    to the container, its database on a named volume, the /healthz healthcheck; no --port."""
    data = _schema(COMPOSE)["data"]
    services = data["services"]
    assert len(services) >= 1
    name, service = next(iter(services.items()))
    assert "build" in service or "image" in service, name
    assert [str(p) for p in service["ports"]] == [f"{PORT}:{PORT}"]
    assert service["environment"] == {"BOARDHALL_PORT": PORT}
    mounts = [str(v) for v in service["volumes"]]
    named = [m.split(":")[0] for m in mounts if ":" in m]
    assert any(v in (data.get("volumes") or {}) for v in named), (mounts, data.get("volumes"))
    data_dirs = {m.split(":")[1] for m in mounts if ":" in m}
    command = " ".join(service.get("command") or [])
    db = re.search(r"--db\s+(\S+)", command)
    assert db is not None and any(db.group(1).startswith(d) for d in data_dirs), command
    assert "--port" not in command
    assert service["healthcheck"]["test"] == HEALTHCHECK


@needs_tool
@pytest.mark.parametrize("port", [None, "9000"])
def test_one_variable_moves_the_server_its_published_port_and_its_healthcheck(
    port: str | None,
) -> None:
    """``BOARDHALL_PORT=9000 docker compose up``: the rendered file publishes 9000 to 9000 and
    hands 9000 to the container (where the server and the healthcheck read it), and names no
    8765 anywhere; without the variable, all of it is 8765."""
    done = _config(COMPOSE, port)
    assert done.returncode == 0, done.stderr
    wanted = port or "8765"
    rendered = done.stdout
    assert re.search(rf"published: {wanted}\n\s+target: {wanted}\n", rendered), rendered
    assert f"BOARDHALL_PORT: '{wanted}'" in rendered, rendered
    if port:
        assert "8765" not in rendered, rendered


@needs_tool
def test_a_broken_compose_file_is_refused(tmp_path: Path) -> None:
    """The control: a misspelt healthcheck key and a port of the wrong type fail both checks."""
    text = COMPOSE.read_text()
    broken = tmp_path / "docker-compose.yml"
    broken.write_text(text.replace("healthcheck:", "healthcheck:\n      tset: nope", 1))
    assert _config(broken).returncode != 0
    assert _schema(broken)["errors"]
    typed = tmp_path / "typed.yml"
    typed.write_text(text.replace("ports:", "ports: 8765\n    old_ports:", 1))
    assert _schema(typed)["errors"]


def _dockerfile_json(instruction: str) -> list[str]:
    """The exec-form (JSON) arguments of the Dockerfile's last ``instruction`` line (for
    HEALTHCHECK: of its CMD, on a continuation line)."""
    text = DOCKERFILE.read_text().replace("\\\n", " ")
    lines = re.findall(rf"^{instruction}\b[^\n]*?(\[[^\n]*\])\s*$", text, re.M)
    assert lines, f"no {instruction} [...] in the Dockerfile"
    found: list[str] = json.loads(lines[-1])
    return found


def test_dockerfile_serves_on_boardhall_port_with_its_db_on_a_volume() -> None:
    """BOARDHALL_PORT=8765 set once (EXPOSE reads it; the CMD has no --port), VOLUME /data,
    the db under /data, the same /healthz healthcheck as the compose file."""
    text = DOCKERFILE.read_text()
    assert re.search(r"^\s+BOARDHALL_PORT=8765\s*$", text, re.M)
    assert re.search(r"^EXPOSE\s+\$\{BOARDHALL_PORT\}\s*$", text, re.M)
    assert text.count("8765") == 2  # the ENV and the comment at the top
    assert re.search(r"^VOLUME\s+.*\/data", text, re.M)
    assert "/data/" in text and "--db" in text
    assert "--port" not in _dockerfile_json("CMD")
    assert ["CMD", *_dockerfile_json("HEALTHCHECK")] == HEALTHCHECK  # HEALTHCHECK ... CMD [...]
    assert _dockerfile_json("ENTRYPOINT") == ["boardhall-server"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _healthcheck(port: int | str) -> subprocess.CompletedProcess[str]:
    """The healthcheck's command as Docker runs it in the container, BOARDHALL_PORT set."""
    argv = HEALTHCHECK[1:]
    assert argv[0] == "python"
    return subprocess.run(
        [sys.executable, *argv[1:]],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=ROOT,
        env={**os.environ, "BOARDHALL_PORT": str(port)},
    )


def test_the_healthcheck_follows_the_port_set_by_boardhall_port_alone(tmp_path: Path) -> None:
    """The image's CMD (its --db moved to tmp_path, its --host to loopback) started with only
    BOARDHALL_PORT set, to a port other than 8765: the server listens there and the healthcheck
    exits 0; asked on another port, or once the server is down, it exits 1 saying why."""
    port = _free_port()
    assert port != 8765
    cmd = _dockerfile_json("CMD")
    cmd[cmd.index("--db") + 1] = str(tmp_path / "hall.db")
    cmd[cmd.index("--host") + 1] = "127.0.0.1"
    server = harness.Subprocess(
        [sys.executable, "-m", "server", *cmd], "boardhall-server", {"BOARDHALL_PORT": str(port)}
    ).start()
    try:
        assert server.port == port
        healthy = _healthcheck(port)
        assert (healthy.returncode, healthy.stderr) == (0, "")
        elsewhere = _healthcheck(_free_port())
        assert elsewhere.returncode == 1
        assert elsewhere.stderr.startswith("unhealthy: http://127.0.0.1:"), elsewhere.stderr
        assert "Connection refused" in elsewhere.stderr
    finally:
        server.stop()
    down = _healthcheck(port)
    assert down.returncode == 1
    assert f"unhealthy: http://127.0.0.1:{port}/healthz: " in down.stderr
    bad = _healthcheck("99999")
    assert (bad.returncode, bad.stderr) == (
        1,
        "unhealthy: BOARDHALL_PORT must be a TCP port from 0 to 65535, not 99999\n",
    )
    anywhere = _healthcheck("0")  # the server would take any free port: no port to ask
    assert (anywhere.returncode, anywhere.stderr) == (
        1,
        "unhealthy: BOARDHALL_PORT=0 lets the server take any free port, which this check "
        "cannot know; set a fixed port\n",
    )


async def test_the_healthcheck_speaks_tls_to_a_server_started_with_a_certificate(
    tmp_path: Path,
) -> None:
    """A server started with --tls-cert and --tls-key (a certificate for the public name, not
    for 127.0.0.1): the healthcheck's plain HTTP is refused, so it asks again over TLS without
    checking the certificate (it only asks whether this container's server is up) and exits
    0; once the server is down it exits 1 naming both tries."""
    ca = trustme.CA()
    issued = ca.issue_cert("play.example.org")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    issued.cert_chain_pems[0].write_to_path(str(cert))
    issued.private_key_pem.write_to_path(str(key))
    server = await ServerProcess.start(
        str(tmp_path / "hall.db"), "--tls-cert", str(cert), "--tls-key", str(key)
    )
    try:
        assert server.url.startswith("wss://127.0.0.1:")
        port = int(server.url.rsplit(":", 1)[1].strip("/"))
        healthy = await asyncio.to_thread(_healthcheck, port)
        assert (healthy.returncode, healthy.stderr) == (0, "")
    finally:
        await server.stop()
    down = await asyncio.to_thread(_healthcheck, port)
    assert down.returncode == 1
    assert f"http://127.0.0.1:{port}/healthz: " in down.stderr
    assert f"https://127.0.0.1:{port}/healthz: " in down.stderr


def _seconds(text: str) -> float:
    """A Compose/Docker duration (``30s``, ``1m30s``, ``500ms``) in seconds."""
    units = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|h|m|s)", text)
    assert parts and "".join(a + b for a, b in parts) == text, text
    return sum(float(n) * units[u] for n, u in parts)


STOP_TAKES_S = 10 + 5 + 5
"""The longest clean stop (server/net.py BoardhallServer.stop): 10 s for held writes while the
disk fails, 5 s for each bot process to end, and the last commits and checkpoint."""


@needs_tool
def test_compose_gives_the_server_time_for_a_clean_stop() -> None:
    """``docker compose down`` sends SIGTERM and SIGKILLs after ``stop_grace_period`` (10 s by
    default): shorter than the server's longest clean stop, a SIGKILL would cut it (the games'
    running turns then come back as after a crash). ``init`` reaps the bot processes."""
    service = next(iter(_schema(COMPOSE)["data"]["services"].values()))
    assert _seconds(str(service["stop_grace_period"])) >= STOP_TAKES_S + 10
    assert service.get("stop_signal", "SIGTERM") == "SIGTERM"
    assert service["init"] is True
    check = service["healthcheck"]
    assert 5 <= _seconds(check["interval"]) <= 60
    assert _seconds(check["timeout"]) < _seconds(check["interval"])
    assert _seconds(check["start_period"]) >= 30  # restoring many games takes a while


def test_dockerfile_runs_as_a_fixed_non_root_user() -> None:
    """The server runs as a user of its own with a fixed uid (so a bind-mounted /data can be
    given to it: ``chown 10001 DIR``), owning /data, and stops on SIGTERM."""
    text = DOCKERFILE.read_text()
    user = re.search(r"^USER\s+(\S+)", text, re.M)
    assert user is not None and user.group(1) not in ("root", "0")
    assert re.search(r"useradd[^\n]*--uid 10001", text)
    assert re.search(r"chown[^\n]*/data", text)
    assert re.search(r"^STOPSIGNAL\s+SIGTERM\b", text, re.M)
    health = re.search(r"^HEALTHCHECK(?:[^\n]*\\\n)*[^\n]*", text, re.M)
    assert health is not None
    start = re.search(r"--start-period=(\S+)", health.group(0))
    assert start is not None and _seconds(start.group(1)) >= 30


DOCKERIGNORE = ROOT / ".dockerignore"


def _ignored(path: str, patterns: list[str]) -> bool:
    """Whether Docker leaves ``path`` (relative to the context) out, as far as these simple
    patterns go: the last matching line wins, ``!`` takes a path back, ``**/`` matches any
    directories."""
    ignored = False
    for pattern in patterns:
        keep = pattern.startswith("!")
        bare = pattern.lstrip("!").strip("/")
        parts = path.split("/")
        candidates = ["/".join(parts[: n + 1]) for n in range(len(parts))]
        names = [bare, bare.removeprefix("**/")]
        if any(fnmatch.fnmatch(c, n) for c in candidates for n in names) or (
            bare.startswith("**/") and any(fnmatch.fnmatch(p, names[1]) for p in parts)
        ):
            ignored = not keep
    return ignored


def test_the_build_context_leaves_out_what_the_image_does_not_need() -> None:
    """``docker compose up`` (or ``docker build .``) in a checkout sends the whole directory to
    the engine: without a .dockerignore that is the virtualenv, .git and a local boardhall.db
    (a player database with its tokens' hashes) too. Everything the Dockerfile copies stays in."""
    patterns = [
        line.strip()
        for line in DOCKERIGNORE.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    for left_out in (".venv/bin/python", ".git/HEAD", "boardhall.db", "boardhall.db-wal",
                     "data/boardhall-backup.db", "server/__pycache__/net.cpython-311.pyc",
                     ".pytest_cache/README.md", "tests/server/test_net.py"):  # fmt: skip
        assert _ignored(left_out, patterns), left_out
    copied = re.findall(r"^COPY\s+(.+?)\s+\S+$", DOCKERFILE.read_text(), re.M)
    sources = [source for line in copied for source in line.split()]
    assert "server" in sources and "pyproject.toml" in sources
    for source in sources:
        assert not _ignored(source, patterns), source
        for inside in (ROOT / source).rglob("*.py") if (ROOT / source).is_dir() else []:
            if "__pycache__" not in inside.parts:
                relative = inside.relative_to(ROOT).as_posix()
                assert not _ignored(relative, patterns), relative
