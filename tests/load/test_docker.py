"""The Docker files, checked without a Docker engine.

``docker-compose`` v1 (Debian package ``docker-compose``) renders the compose file with
``docker-compose -f FILE config`` without an engine and validates it against the compose spec
JSON schema it ships (``compose/config/compose_spec.json``); the tests also validate the file
against that schema directly with ``jsonschema`` in the tool's own Python, assert the structure
(service, port, volume, healthcheck), and run the healthcheck command against a real server.
A broken compose file must be refused (so the checks can fail).
"""

from __future__ import annotations

import fnmatch
import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench import harness

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


def _config(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(TOOL), "-f", str(path), "config"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=path.parent,
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


@needs_tool
def test_compose_structure_service_port_volume_healthcheck() -> None:
    """One server service on 8765, its database on a named volume, a /healthz healthcheck."""
    data = _schema(COMPOSE)["data"]
    services = data["services"]
    assert len(services) >= 1
    name, service = next(iter(services.items()))
    assert "build" in service or "image" in service, name
    ports = [str(p) for p in service["ports"]]
    assert any(p.endswith("8765") or p == "8765:8765" for p in ports), ports
    mounts = [str(v) for v in service["volumes"]]
    named = [m.split(":")[0] for m in mounts if ":" in m]
    assert any(v in (data.get("volumes") or {}) for v in named), (mounts, data.get("volumes"))
    data_dirs = {m.split(":")[1] for m in mounts if ":" in m}
    command = " ".join(service.get("command") or [])
    db = re.search(r"--db\s+(\S+)", command)
    assert db is not None and any(db.group(1).startswith(d) for d in data_dirs), command
    check = " ".join(service["healthcheck"]["test"])
    assert "/healthz" in check and "urllib" in check and "8765" in check


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


def test_dockerfile_serves_8765_with_its_db_on_a_volume() -> None:
    """EXPOSE 8765, VOLUME /data, the db under /data, a HEALTHCHECK on /healthz."""
    text = DOCKERFILE.read_text()
    assert re.search(r"^EXPOSE\s+8765\b", text, re.M)
    assert re.search(r"^VOLUME\s+.*\/data", text, re.M)
    assert "/data/" in text and "--db" in text
    health = re.search(r"^HEALTHCHECK(?:[^\n]*\\\n)*[^\n]*", text, re.M)
    assert health is not None and "/healthz" in health.group(0)
    assert "boardhall-server" in text


def test_the_healthcheck_command_passes_against_a_real_server(tmp_path: Path) -> None:
    """The compose healthcheck's Python one-liner exits 0 on a live server, 1 when it is down."""
    text = COMPOSE.read_text()
    found = re.search(r'"-c",\s*"(.*?)"\]', text)
    assert found is not None, "healthcheck test is not [CMD, python, -c, ...]"
    one_liner = found.group(1)
    server = harness.boardhall(tmp_path / "h.db").start()
    try:
        live = one_liner.replace("8765", str(server.port))
        assert subprocess.run([sys.executable, "-c", live], timeout=30).returncode == 0
    finally:
        server.stop()
    down = subprocess.run([sys.executable, "-c", live], timeout=30, capture_output=True, text=True)
    assert down.returncode != 0, shlex.quote(live)


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
