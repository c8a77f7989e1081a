"""The key a client address is limited by (``--ipv6-prefix``).

An ISP gives one IPv6 subscriber a whole network, normally a /64, and the subscriber's machines
take any address in it (privacy extensions change theirs every day or so): a limit per IPv6
address would give one person a fresh budget per address. So every per-address limit
(``--connections-per-address``, the unfinished handshakes it bounds, the chat budget of
``--chat-address-lines``) counts an IPv6 client by its network of ``--ipv6-prefix`` bits. Logs
and answers keep naming the real address. A link-local (``fe80::/10``) or unique-local
(``fc00::/7``) address is a machine of the local network, not an ISP's subscriber: every host
of a LAN shares one link-local /64, so those count one by one, as LAN players over IPv4 do.
"""

from __future__ import annotations

import ipaddress

DEFAULT_IPV6_PREFIX = 64
"""The IPv6 network one subscriber normally gets (RFC 6177): one key for all of it."""
MIN_IPV6_PREFIX = 32
"""The shortest prefix ``--ipv6-prefix`` takes (a /32 is a whole ISP: one key for all of it
would be one limit for thousands of people)."""
MAX_IPV6_PREFIX = 128
"""The longest prefix: each IPv6 address on its own."""
_LOCAL_NETWORKS = (ipaddress.IPv6Network("fe80::/10"), ipaddress.IPv6Network("fc00::/7"))
"""Link-local and unique-local networks: their addresses are counted one by one."""


def limit_key(address: str, ipv6_prefix: int = DEFAULT_IPV6_PREFIX) -> str:
    """The key ``address`` is counted under by the per-address limits: an IPv4 address as it
    is, an IPv4-mapped IPv6 one as the IPv4 address it maps, a loopback address as it is, a
    link-local or unique-local one as itself (its zone id dropped), any other IPv6 address as
    its network of ``ipv6_prefix`` bits (at 128 the address itself), and anything that is not
    an IP address (a Unix socket, ``?``) as it is.

    >>> limit_key("203.0.113.7")
    '203.0.113.7'
    >>> limit_key("::ffff:203.0.113.7")
    '203.0.113.7'
    >>> limit_key("2001:db8:1:2:a:b:c:d")
    '2001:db8:1:2::/64'
    >>> limit_key("2001:DB8:1:2::99")
    '2001:db8:1:2::/64'
    >>> limit_key("fe80::1%eth0"), limit_key("fe80::2%eth0"), limit_key("fd12:3456::7")
    ('fe80::1', 'fe80::2', 'fd12:3456::7')
    >>> limit_key("2001:db8:1:2:a:b:c:d", 48)
    '2001:db8:1::/48'
    >>> limit_key("2001:db8:1:2:a:b:c:d", 128)
    '2001:db8:1:2:a:b:c:d'
    >>> limit_key("::1"), limit_key("127.0.0.1")
    ('::1', '127.0.0.1')
    >>> limit_key("?"), limit_key(""), limit_key("/run/boardhall.sock")
    ('?', '', '/run/boardhall.sock')
    """
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv4Address):
        return address
    if parsed.ipv4_mapped is not None:
        return str(parsed.ipv4_mapped)
    if parsed.is_loopback:
        return address
    bare = ipaddress.IPv6Address(parsed.packed)  # without its zone id
    if ipv6_prefix >= MAX_IPV6_PREFIX or any(bare in net for net in _LOCAL_NETWORKS):
        return str(bare)
    return str(ipaddress.IPv6Network((bare, ipv6_prefix), strict=False))
