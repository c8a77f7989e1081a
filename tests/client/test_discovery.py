"""LAN discovery in the client: the finder hears a real server, the connect screen lists it,
and picking it (keyboard or mouse) fills the address that Enter connects to."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import itertools
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pygame
import pytest

from client import demo, screenshot
from client.address import to_url
from client.app import App
from client.config import Config
from client.discovery import (
    FORGET_AFTER_S,
    NONE_FOUND_AFTER_S,
    Finder,
    _sockaddr,
    broadcast_addresses,
    default_targets,
    link_local_interfaces,
    machine_adapters,
)
from client.local import EmbeddedServer
from client.scenes.connect import ConnectScene
from client.scenes.lobby import LobbyScene
from client.ui import draw, theme
from protocol.discovery import Answer, encode_answer
from server.discovery import Settings
from server.net import running_server
from server.testing import WireClient
from tests.client.conftest import FakeClock
from tests.client.helpers import click, key, pump
from tests.server.helpers import ADAPTERS, link_local


@pytest.fixture
def lan_server() -> Iterator[EmbeddedServer]:
    """A real server on loopback answering probes on a free loopback UDP port."""
    settings = Settings("Test hall", port=0, bind="127.0.0.1")
    server = EmbeddedServer(discovery=settings).start()
    yield server
    server.stop()


def probing(server: EmbeddedServer) -> Finder:
    """A finder that probes only ``server``'s discovery port."""
    assert server.server is not None and server.server.discovery is not None
    port = server.server.discovery.port
    return Finder(targets=lambda: [("127.0.0.1", port)])


def answer(name: str, ident: str = "0123456789abcdef", port: int = 8765, **fields: object) -> bytes:
    """An answer datagram of a made-up server."""
    values: dict[str, object] = {"protocol": 1, "id": ident, "name": name, "version": "0.1.0",
                                 "port": port, "scheme": "ws", "players": 2, "rooms": 1, **fields}
    return encode_answer(Answer.model_validate(values))


def test_probes_go_to_every_broadcast_address_and_this_machine() -> None:
    """The limited broadcast, each network's broadcast (not loopback's, which is always there,
    nor a /32's), then this machine: its loopback broadcast (every server on it hears that
    one) and 127.0.0.1 (where a system has no loopback broadcast)."""
    assert broadcast_addresses(ADAPTERS) == ["192.168.1.255", "10.8.255.255"]
    assert default_targets(8765, ADAPTERS)[:5] == [
        ("255.255.255.255", 8765), ("192.168.1.255", 8765), ("10.8.255.255", 8765),
        ("127.255.255.255", 8765), ("127.0.0.1", 8765)]
    assert default_targets(9000, []) == [("255.255.255.255", 9000),
                                         ("127.255.255.255", 9000),
                                         ("127.0.0.1", 9000)]


def test_ipv6_probes_go_to_all_nodes_on_each_interface_with_ipv6() -> None:
    """After the IPv4 targets, ff02::1 (IPv6's all nodes: it has no broadcast) on each
    interface with a link-local address, once each, as ``ff02::1%INDEX`` (a Windows
    adapter's by its addresses' scope), sent with that interface index."""
    assert link_local_interfaces(ADAPTERS) == [4, 7]
    assert default_targets(8765, ADAPTERS)[-2:] == [("ff02::1%4", 8765), ("ff02::1%7", 8765)]
    assert _sockaddr(("ff02::1%7", 8765)) == ("ff02::1", 8765, 0, 7)
    assert _sockaddr(("192.168.1.255", 8765)) == ("192.168.1.255", 8765)


def test_this_machines_interfaces_are_probed() -> None:
    """Without adapters given, the targets are this machine's own: each IPv4 network's
    broadcast the kernel lists (Linux's ``/proc/net/fib_trie``, read here only to check)."""
    kernel = []
    with contextlib.suppress(OSError):
        lines = Path("/proc/net/fib_trie").read_text().splitlines()
        for previous, line in itertools.pairwise(lines):
            if "/32 link BROADCAST" in line:
                kernel.append(previous.strip().removeprefix("|-- ").removeprefix("+-- "))
    expected = {address for address in kernel if not address.startswith("127.")}
    targets = {address for address, _ in default_targets(8765)}
    assert expected <= targets
    assert machine_adapters(), "no interface listed (loopback at least is always there)"


def test_the_finder_lists_every_server_on_this_machine() -> None:
    """Two real servers on this machine (two TCP ports) share the discovery port: a finder
    probing the default targets on loopback (all that reaches this machine with no network:
    the broadcasts then go nowhere) lists both. Before, probes reached this machine at
    127.0.0.1 only, a datagram the system hands to one of the servers sharing the port."""
    first = EmbeddedServer(discovery=Settings("First hall", port=0)).start()
    try:
        assert first.server is not None and first.server.discovery is not None
        port = first.server.discovery.port
        second = EmbeddedServer(discovery=Settings("Second hall", port=port)).start()
        try:
            assert second.server is not None and second.server.discovery is not None
            local = [target for target in default_targets(port, [])
                     if ipaddress.ip_address(target[0]).is_loopback]
            finder = Finder(targets=lambda: local)
            finder.start()
            try:
                deadline = time.monotonic() + 10
                while len(finder.servers()) < 2 and time.monotonic() < deadline:
                    finder.news.wait(1)
                    finder.news.clear()
                listed = [(f.name, f.port) for f in finder.servers()]
            finally:
                finder.stop()
            assert listed == [("First hall", first.server.port),
                              ("Second hall", second.server.port)]
        finally:
            second.stop()
    finally:
        first.stop()


@pytest.mark.skipif(link_local() is None, reason="no interface with IPv6 multicast")
async def test_the_finder_hears_a_server_on_every_ipv6_address_over_ipv6_and_connects() -> None:
    """A real server on ``::`` heard through the finder's IPv6 probes alone (ff02::1 on each
    interface, looped back to this machine: loopback carries no IPv6 multicast) is listed at
    its link-local address with the interface, bracketed with the port, and that address is
    one a client connects to."""
    settings = Settings("Six hall", port=0)
    async with running_server(host="::", port=0, discovery=settings) as server:
        assert server.discovery is not None
        port = server.discovery.port
        ipv6 = [target for target in default_targets(port) if ":" in target[0]]
        assert ipv6, "no IPv6 target"
        finder = Finder(targets=lambda: ipv6)
        finder.start()
        try:
            assert await asyncio.to_thread(finder.news.wait, 10), "no answer over IPv6"
            (found,) = finder.servers()
        finally:
            finder.stop()
        assert found.name == "Six hall"
        host = ipaddress.ip_address(found.host)
        assert isinstance(host, ipaddress.IPv6Address) and host.is_link_local and host.scope_id
        assert found.address == f"[{found.host}]:{server.port}"
        wire = await WireClient.connect(to_url(found.address), "Ann")
        try:
            assert wire.welcome["type"] == "welcome"
        finally:
            await wire.close()


def test_the_finder_hears_a_real_server(lan_server: EmbeddedServer) -> None:
    """Started, the finder probes from its own thread and lists the server that answered."""
    finder = probing(lan_server)
    finder.start()
    try:
        assert finder.news.wait(10), "no answer from the server"
        (found,) = finder.servers()
    finally:
        finder.stop()
    assert not finder.running
    assert (found.name, found.host, found.port, found.scheme) == (
        "Test hall", "127.0.0.1", lan_server.server.port, "ws")
    assert (found.players, found.rooms) == (0, 0)
    assert found.address == f"127.0.0.1:{lan_server.server.port}"


def test_one_server_is_listed_once_and_forgotten_when_silent() -> None:
    """The same server heard on loopback and on the LAN shows once, at its LAN address; junk is
    ignored; a server silent for FORGET_AFTER_S seconds goes."""
    clock = FakeClock()
    finder = Finder(targets=list, clock=clock)
    finder.heard(answer("Hall"), "192.168.1.20")
    finder.heard(answer("Hall"), "127.0.0.1")
    finder.heard(answer("Hall", players=5), "192.168.1.20")
    finder.heard(b"garbage", "192.168.1.30")
    finder.heard(answer("Other", ident="ffff", host="not a host/"), "192.168.1.31")
    finder.heard(answer("Six", ident="6666", host="fd00::6", scheme="wss"), "192.168.1.6")
    # heard over IPv6 only: at its link-local address and interface; over both, at IPv4's
    finder.heard(answer("Link", ident="7777"), "fe80::7%eth0")
    finder.heard(answer("Both", ident="8888"), "192.168.1.8")
    finder.heard(answer("Both", ident="8888"), "fe80::8%eth0")
    finder.heard(answer("Both", ident="8888"), "127.0.0.1")
    listed = {f.name: f for f in finder.servers()}
    assert sorted(listed) == ["Both", "Hall", "Link", "Other", "Six"]
    assert listed["Link"].address == "[fe80::7%eth0]:8765"
    assert listed["Both"].where == "192.168.1.8:8765"
    assert (listed["Hall"].where, listed["Hall"].players) == ("192.168.1.20:8765", 5)
    assert listed["Other"].host == "192.168.1.31"  # a "host" that is no address: the source
    assert listed["Six"].address == "wss://[fd00::6]:8765"
    clock.now += FORGET_AFTER_S - 1
    finder.heard(answer("Other", ident="ffff"), "192.168.1.31")
    clock.now += 1.5
    assert [f.name for f in finder.servers()] == ["Other"]
    finder.heard(answer("Both", ident="8888"), "fe80::8%eth0")
    finder.heard(answer("Both", ident="8888"), "127.0.0.1")  # loopback: the last resort
    assert [f.where for f in finder.servers() if f.name == "Both"] == ["[fe80::8%eth0]:8765"]


def connect_app(
    tmp_path: Path, finder: Finder, clock: Callable[[], float] = time.monotonic
) -> App:
    """A headless app showing the connect screen with ``finder``, Alice's name typed."""
    app = App(Config(path=tmp_path / "config.json"), headless=True, clock=clock)
    app.push(ConnectScene(app, "", "Alice", finder))
    return app


def test_the_connect_screen_lists_a_real_server_and_the_keyboard_connects_to_it(
    tmp_path: Path, lan_server: EmbeddedServer
) -> None:
    """The screen searches while shown; Down picks the server found, Enter connects to it, and
    the search stops once connecting."""
    finder = probing(lan_server)
    app = connect_app(tmp_path, finder)
    scene = app.top
    assert isinstance(scene, ConnectScene)
    try:
        app.step(0.0)
        assert finder.running
        assert finder.news.wait(10), "no answer from the server"
        app.step(0.0)  # (the answer may have come during the first frame already)
        assert [f.name for f in scene.lan.found] == ["Test hall"]
        assert texts(app, scene, 1.0).count("Test hall") == 1
        key(app, pygame.K_DOWN)
        assert scene.address.value == f"127.0.0.1:{lan_server.server.port}"
        assert scene.lan.chosen(scene.address.value) == 0
        key(app, pygame.K_RETURN)
        app.step(0.0)
        assert not finder.running  # connecting: no more probes
        pump(app, lambda: isinstance(app.top, LobbyScene))
        assert app.url == lan_server.url
    finally:
        app.disconnect()
        finder.stop()


def test_a_click_on_a_row_fills_the_address(tmp_path: Path) -> None:
    """The mouse picks too; Up from nothing picks the last row; typing un-picks."""
    finder = demo.demo_finder()
    app = connect_app(tmp_path, finder)
    scene = app.top
    assert isinstance(scene, ConnectScene)
    app.step(0.0)
    try:
        rows = [f.address for f in scene.lan.found]
        assert rows == ["192.168.1.20:8765", "wss://192.168.1.7:443"]
        click(app, scene.lan.row_rect(1).center)
        assert scene.address.value == "wss://192.168.1.7:443"
        key(app, pygame.K_UP)
        assert scene.address.value == "192.168.1.20:8765"
        key(app, pygame.K_UP)  # the first stays picked
        assert scene.address.value == "192.168.1.20:8765"
        scene.address.value = "192.168.1.20"  # the default port: that row
        assert scene.lan.chosen(scene.address.value) == 0
        scene.address.value = ""
        key(app, pygame.K_UP)
        assert scene.address.value == "wss://192.168.1.7:443"
    finally:
        finder.stop()


def test_the_empty_list_says_searching_then_none_found(tmp_path: Path) -> None:
    """Nothing answers: a calm line, first "searching", then what to do instead."""
    clock = FakeClock()
    finder = Finder(targets=list, clock=clock)
    app = connect_app(tmp_path, finder, clock)
    scene = app.top
    assert isinstance(scene, ConnectScene)
    try:
        app.step(0.0)
        assert scene.lan.searching and not scene.lan.found
        clock.now += NONE_FOUND_AFTER_S
        assert app.step(0.0), "the line did not change"
        assert not scene.lan.searching
        shown = texts(app, scene, 1.0)
        assert "None found: type the server's address." in shown
        assert not any(t.startswith("Searching") for t in shown)
    finally:
        finder.stop()
    assert not finder.running


def texts(app: App, scene: ConnectScene, scale: float) -> list[str]:
    """The lines ``scene`` draws at ``scale``."""
    with draw.collect_text(scale) as items:
        scene.draw(app.surface)
    return [item.value for item in items]


@pytest.mark.parametrize("size", [(1280, 800), (640, 480)])
def test_two_servers_at_both_sizes_stay_inside_their_cards(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """Rendered with two servers found: every line of the form stays inside its card, every
    line of the list inside its own (a small window draws text relatively larger)."""
    app = screenshot.make_app()
    screenshot.build_scene(app, "connect", "chess", None, None, 0)
    scene = app.top
    assert isinstance(scene, ConnectScene)
    try:
        out = tmp_path / f"discovery-{size[0]}x{size[1]}.png"
        screenshot.save(app, out, size)
        shutil.copy(out, Path("/tmp") / out.name)
        scale = min(size[0] / theme.LOGICAL_SIZE[0], size[1] / theme.LOGICAL_SIZE[1])
        with draw.collect_text(scale) as items:
            scene.draw(app.surface)
        assert any(item.value == "Alice's laptop" for item in items)
        for card in (scene.card, scene.lan.rect):
            window_card = pygame.Rect(card.left * scale, card.top * scale, card.width * scale,
                                      card.height * scale)
            for item in items:
                if card.collidepoint(item.pos):
                    _, _, rect = draw.placed(item, scale, (0, 0))
                    assert window_card.contains(rect), f"{item.value!r} runs out of its card"
    finally:
        scene.lan.finder.stop()
