"""The address phones open: this machine's LAN address, or the one configured.

Used by both the server command (what it prints and puts in the QR) and the pages
(the join QR on the big screen). The LAN address is found by asking the kernel
about its own interfaces: no packet is sent.

>>> lan_ipv4([("lo", "127.0.0.1"), ("docker0", "172.17.0.1"), ("eth0", "192.168.1.20")])
'192.168.1.20'
>>> base_url("https://abc.example.net/", "http://127.0.0.1:8000/")
'https://abc.example.net'
>>> base_url(None, "http://192.168.1.20:8000/")
'http://192.168.1.20:8000'
"""

from __future__ import annotations

import fcntl
import ipaddress
import socket
import struct
from collections.abc import Iterable
from urllib.parse import urlsplit

SIOCGIFADDR = 0x8915


def interface_addresses() -> list[tuple[str, str]]:
    """(interface, IPv4) for every interface that has one (Linux; nothing elsewhere)."""
    try:
        names = [name for _, name in socket.if_nameindex()]
    except (OSError, AttributeError):
        return []
    out = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for name in names:
            try:
                packed = fcntl.ioctl(s.fileno(), SIOCGIFADDR,
                                     struct.pack("256s", name.encode()[:15]))
            except OSError:
                continue
            out.append((name, socket.inet_ntoa(packed[20:24])))
    return out


def _rank(name: str, ip: str) -> int:
    """Prefer real LAN interfaces over containers and VPNs; private over public."""
    addr = ipaddress.IPv4Address(ip)
    score = 0 if addr.is_private else 1
    if name.startswith(("docker", "br-", "veth", "virbr", "tun", "tap", "wg", "zt", "tailscale")):
        score += 2
    return score


def lan_ipv4(candidates: Iterable[tuple[str, str]] | None = None) -> str:
    """This machine's LAN IPv4 address; loopback only when nothing else exists."""
    found = [(n, ip) for n, ip in (interface_addresses() if candidates is None else candidates)
             if not ipaddress.IPv4Address(ip).is_loopback
             and not ipaddress.IPv4Address(ip).is_link_local]
    if found:
        return sorted(found, key=lambda p: _rank(*p))[0][1]
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            ip = str(info[4][0])
            if not ipaddress.IPv4Address(ip).is_loopback:
                return ip
    except OSError:
        pass
    return "127.0.0.1"


def base_url(configured: str | None, reached_at: str) -> str:
    """The address phones should open: ``configured`` (``--public-url``), else the
    address this server was reached at when that is an IP address on the network (the
    big screen opened it, so the phones beside it can), else — loopback, ``localhost``
    or a name, which a phone may not resolve (``laptop.local``) — the LAN address now.

    >>> base_url(None, "http://laptop.local:8000/").startswith("http://laptop")
    False
    """
    if configured:
        return configured.rstrip("/")
    parts = urlsplit(reached_at.rstrip("/"))
    try:
        if not ipaddress.ip_address(parts.hostname or "").is_loopback:
            return reached_at.rstrip("/")
    except ValueError:
        pass                                   # a name
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{lan_ipv4()}{port}"
