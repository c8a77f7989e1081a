"""Which addresses other machines can reach this server at, to tell the operator at start.

A server bound to every address (``0.0.0.0``, ``::``) prints ``ws://127.0.0.1:PORT``, which is
useless to the friend across the room: they need this machine's network address. No call of the
standard library lists a machine's addresses on every system, so :func:`lan_addresses` asks
the places that answer without sending anything (the source address the system would use for a
route outside, the host name's addresses, and the interfaces' own, through ``ifaddr``) and keeps
those another machine could use.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket
from collections.abc import Iterable, Mapping

import ifaddr

MAX_SHOWN = 4
"""At most this many addresses are named (a host with many bridges would fill the terminal)."""

_WILDCARDS = {"", "0.0.0.0", "::", "*"}

_PROBES = (("192.0.2.1", socket.AF_INET), ("2001:db8::1", socket.AF_INET6))
"""Documentation addresses (RFC 5737, RFC 3849): connecting a UDP socket to one sends nothing,
it only makes the system choose the source address of its default route."""


def is_wildcard(host: str) -> bool:
    """Whether ``--host`` binds every address of the machine (of one family or both)."""
    return host.strip() in _WILDCARDS


def is_loopback(host: str) -> bool:
    """Whether ``--host`` is a loopback address or ``localhost``: only this machine can
    connect (brackets and an IPv6 ``%interface`` are allowed)."""
    text = listen_text(host)
    if text.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(text).is_loopback
    except ValueError:
        return False


def reachable(addresses: Iterable[str], ipv6: bool = True) -> list[str]:
    """``addresses`` another machine could connect to, in their order without repeats: no
    loopback, link-local (they need an interface name), multicast or unspecified ones; IPv6 only
    when ``ipv6`` (the server listens on IPv6 too)."""
    kept: list[str] = []
    for text in addresses:
        try:
            address = ipaddress.ip_address(text.split("%", 1)[0])
        except ValueError:
            continue
        if (
            address.is_loopback
            or address.is_link_local
            or address.is_multicast
            or address.is_unspecified
            or (address.version == 6 and not ipv6)
        ):
            continue
        if str(address) not in kept:
            kept.append(str(address))
    return kept


def lan_addresses(ipv6: bool = True) -> list[str]:
    """This machine's addresses that others could reach, the default route's first, IPv4
    before IPv6, at most :data:`MAX_SHOWN`; empty when none can be told (no network)."""
    found = _route_sources() + _host_name_addresses() + interface_addresses()
    kept = reachable(found, ipv6)
    kept.sort(key=lambda a: ipaddress.ip_address(a).version)  # stable: route's first per family
    return kept[:MAX_SHOWN]


CONTAINER_VARIABLE = "BOARDHALL_IN_CONTAINER"
"""Set to ``1`` by the project's Dockerfile: the server's own addresses are the container's,
which players outside cannot use (``/.dockerenv`` is not a sign: sandboxes have it too)."""


def in_container(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether this server runs in the project's container image."""
    return environ.get(CONTAINER_VARIABLE, "") == "1"


def connect_hint(
    host: str, port: int, scheme: str, addresses: list[str], container: bool = False
) -> str:
    """The start line that says how players on other machines connect, for a server bound to
    ``host`` (``addresses``: :func:`lan_addresses`, used only when it binds every address;
    ``container``: in a container, whose addresses only the host reaches)."""
    if container and is_wildcard(host):
        return (
            f"in a container: players connect to {scheme}:// and the host machine's address, "
            f"with the port published for {port}"
        )
    if is_loopback(host):
        return (
            f"only this machine can connect (--host {host}); --host 0.0.0.0 lets "
            "players on other machines in"
        )
    if not is_wildcard(host):
        return f"players connect to {scheme}://{_bracketed(listen_text(host))}:{port}"
    if not addresses:
        return "players on other machines connect to this machine's network address (none found)"
    urls = ", ".join(f"{scheme}://{_bracketed(a)}:{port}" for a in addresses)
    return f"players on other machines connect to {urls}"


def listen_text(host: str) -> str:
    """``host`` without spaces, brackets or an IPv6 ``%interface``."""
    text = host.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    return text.split("%", 1)[0]


def _bracketed(address: str) -> str:
    return f"[{address}]" if ":" in address else address


def _route_sources() -> list[str]:
    found: list[str] = []
    for target, family in _PROBES:
        with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.connect((target, 9))
            found.append(str(probe.getsockname()[0]))
    return found


def _host_name_addresses() -> list[str]:
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, type=socket.SOCK_STREAM)
    except OSError:
        return []
    return [str(info[4][0]) for info in infos]


def interface_addresses(adapters: Iterable[ifaddr.Adapter] | None = None) -> list[str]:
    """Every address of ``adapters`` (this machine's network interfaces when not given, as
    ``ifaddr`` lists them on Linux, the BSDs, macOS and Windows), IPv6 ones without scope."""
    if adapters is None:
        try:
            adapters = ifaddr.get_adapters()
        except OSError:
            return []
    return [ip.ip if isinstance(ip.ip, str) else ip.ip[0] for a in adapters for ip in a.ips]
