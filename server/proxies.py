"""The client address behind a trusted reverse proxy (``--trusted-proxies``).

A proxy that terminates TLS (nginx, Caddy, Traefik) connects to the server itself, so every
player's TCP peer is the proxy. The proxy names the real client in a header: ``X-Forwarded-For``
(a comma-separated list, each proxy appending the address it saw) or RFC 7239's ``Forwarded``
(``for=192.0.2.60;proto=https, for="[2001:db8::1]:4711"``). Anyone can send those headers, so
they are only read from a peer in the trusted list (as uvicorn's ``--forwarded-allow-ips``):

* ``X-Forwarded-For`` is read from the right, where the nearest proxy wrote: the entries of
  trusted proxies are skipped and the first that is not one is the client (what lies further
  left was written by that client, and may be anything). When every entry is a trusted proxy,
  the leftmost is the client (a player on the proxies' own network).
* Only without ``X-Forwarded-For`` are the ``for=`` parameters of ``Forwarded`` read, the same
  way.
* An entry that must be read and is not an IP address (``unknown``, an obfuscated ``_name``,
  garbage, a missing ``for=``) makes the header name no client: the caller then keeps the
  proxy's own address. That is never an error to the user.

Addresses are written one way (``2001:db8::1``, an IPv4-mapped ``::ffff:192.0.2.1`` as
``192.0.2.1``, without a port), so that one client counts once whatever form a proxy used.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

_EXAMPLE = "as in 127.0.0.1, ::1, 10.0.0.0/8"


def parse_networks(text: str) -> tuple[Network, ...]:
    """The trusted proxies of ``--trusted-proxies``: comma-separated IP addresses and CIDR
    networks (an IPv6 address may be in brackets); empty entries are skipped.

    >>> [str(n) for n in parse_networks("127.0.0.1, ::1, 10.0.0.0/8")]
    ['127.0.0.1/32', '::1/128', '10.0.0.0/8']

    Raises:
        ValueError: an entry that is not an address or network, named with what to write.
    """
    networks: list[Network] = []
    for typed in text.split(","):
        entry = typed.strip()
        if not entry:
            continue
        bare = entry[1:-1] if entry.startswith("[") and entry.endswith("]") else entry
        try:
            networks.append(ipaddress.ip_network(bare))
        except ValueError:
            raise ValueError(_not_a_network(entry, bare)) from None
    return tuple(networks)


def _not_a_network(entry: str, bare: str) -> str:
    """What is wrong with ``entry`` (``bare`` without its brackets), in words."""
    try:
        loose = ipaddress.ip_network(bare, strict=False)
    except ValueError:
        hint = " (trust every peer with 0.0.0.0/0,::/0)" if entry == "*" else ""
        return f"{entry!r} is not an IP address or network{hint}, {_EXAMPLE}"
    return f"{entry!r} has host bits set: did you mean {loose}?"


class TrustedProxies:
    """The peers whose forwarding headers are believed (none: every header is ignored)."""

    def __init__(self, networks: Sequence[Network]) -> None:
        self.networks = tuple(networks)

    def __bool__(self) -> bool:
        return bool(self.networks)

    def trusts(self, peer: str) -> bool:
        """Whether the TCP peer ``peer`` (as the socket names it) is a trusted proxy."""
        if not self.networks:
            return False
        try:
            address = _plain(ipaddress.ip_address(peer))
        except ValueError:
            return False
        return self._trusted(address)

    def _trusted(self, address: Address) -> bool:
        return any(address in network for network in self.networks)

    def client(self, forwarded_for: Sequence[str], forwarded: Sequence[str]) -> str | None:
        """The client a trusted proxy names in its ``X-Forwarded-For`` header lines or, with
        none, its ``Forwarded`` ones; ``None`` when they name none that can be read."""
        if forwarded_for:
            nodes: list[str] | None = ",".join(forwarded_for).split(",")
        elif forwarded:
            nodes = _forwarded_for(",".join(forwarded))
        else:
            return None
        if nodes is None:
            return None
        found: Address | None = None
        for node in reversed(nodes):
            address = _node(node)
            if address is None:
                return None
            found = address
            if not self._trusted(address):
                break
        return str(found) if found is not None else None


def _plain(address: Address) -> Address:
    """``address``, an IPv4-mapped IPv6 one as the IPv4 address it maps."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


_PORT = re.compile(r"[0-9]{1,5}|_[A-Za-z0-9._-]+")
"""A node's port: a number, or RFC 7239's obfuscated ``_name``."""


def _node(text: str) -> Address | None:
    """The address of one forwarded node (``192.0.2.1``, ``192.0.2.1:4711``, ``2001:db8::1``,
    ``[2001:db8::1]`` or ``[2001:db8::1]:4711``), or ``None``: anything else, ``unknown`` and
    obfuscated names included."""
    node = text.strip()
    if node.startswith("["):
        host, close, rest = node[1:].partition("]")
        if not close or ":" not in host:
            return None
    elif node.count(":") == 1:
        host, _, port = node.partition(":")
        rest = f":{port}"
    else:
        host, rest = node, ""
    if rest and (rest[0] != ":" or not _PORT.fullmatch(rest[1:])):
        return None
    try:
        return _plain(ipaddress.ip_address(host))
    except ValueError:
        return None


_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_PAIR = re.compile(
    rf"[ \t]*({_TOKEN})=(\"(?:[^\"\\]|\\.)*\"|[!#$%&'*+.^_`|~0-9A-Za-z:\[\]-]*)[ \t]*([;,]|\Z)"
)
"""One ``name=value`` pair of ``Forwarded`` and what ends it: ``;`` (another pair of the same
element), ``,`` (another element) or the end. The value is a token or a quoted string; an IPv6
node is allowed unquoted too (some proxies write it so)."""

_QUOTED_PAIR = re.compile(r"\\(.)")


def _forwarded_for(text: str) -> list[str] | None:
    """The ``for=`` node of each element of a ``Forwarded`` header (RFC 7239 section 4), in
    order (an empty one for an element without it); ``None`` when the header does not read as
    pairs, or an element names two."""
    nodes: list[str] = []
    found: str | None = None
    at = 0
    while at < len(text):
        if text[at] in " \t,":  # empty list elements
            at += 1
            continue
        pair = _PAIR.match(text, at)
        if pair is None:
            return None
        name, value, end = pair.groups()
        if name.lower() == "for":
            if found is not None:
                return None
            found = _QUOTED_PAIR.sub(r"\1", value[1:-1]) if value.startswith('"') else value
        at = pair.end()
        if end != ";" or at >= len(text):
            nodes.append(found or "")
            found = None
    return nodes
