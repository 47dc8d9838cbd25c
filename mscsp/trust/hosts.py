"""Which addresses are loopback, and which ``Host`` names a server answers to.

One loopback test (:func:`is_loopback`) decides both whether ``mscsp serve`` is reachable
from other machines (then it needs a token, and warns) and which ``Host`` headers it
accepts: a page of another site that points its own name at this machine (DNS rebinding)
sends that name as its ``Host``, and is refused.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterable
from dataclasses import dataclass

#: What an IPv4 address may look like in the forms ``inet_aton`` reads (``127.1``,
#: ``0x7f.0.0.1``); checked first, as the C function ignores what follows a space.
_IPV4_FORMS = re.compile(r"[0-9a-fA-FxX.]{1,32}", re.ASCII)


def address_of(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The IP address ``host`` writes literally (``127.1``, ``[::1]``), or ``None`` for a
    name."""
    text = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        if not _IPV4_FORMS.fullmatch(text) or not any(c.isdigit() for c in text):
            return None
        try:
            return ipaddress.IPv4Address(socket.inet_aton(text))
        except OSError:
            return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def is_loopback(host: str) -> bool:
    """Whether ``host`` is ``localhost`` or a loopback address (``127.0.0.0/8`` in any form,
    ``::1``): reachable from this machine only. Other names are not looked up: a name that
    resolves to loopback today may not tomorrow."""
    if host.lower().rstrip(".") == "localhost":
        return True
    address = address_of(host)
    return address is not None and address.is_loopback


def host_name(header: str) -> str:
    """The name of a ``Host`` header, without its port, in lower case (``[::1]:8765`` is
    ``[::1]``)."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[: header.find("]") + 1] if "]" in header else header
    return header.rpartition(":")[0] if header.count(":") == 1 else header


@dataclass(frozen=True)
class HostAllowList:
    """The ``Host`` names a server answers to.

    Attributes:
        names: Names accepted as they are (lower case, no port).
        addresses: Whether any IP address written literally is accepted too. A page can
            send one only from that address's own origin, which is then the server's: no
            rebinding goes through an address. Set for a server bound to other machines,
            which are reached under addresses this one may not know (a router's, a
            container's).
    """

    names: frozenset[str]
    addresses: bool = False

    def allows(self, header: str) -> bool:
        """Whether a request with this ``Host`` header is answered: a loopback name or
        address always (:func:`is_loopback`), else one of :attr:`names`, or an address
        where :attr:`addresses` says so."""
        name = host_name(header)
        if not name:
            return False
        if is_loopback(name) or name in self.names or name.rstrip(".") in self.names:
            return True
        return self.addresses and address_of(name) is not None


def allow_list(bound: str, given: Iterable[str] = ()) -> HostAllowList:
    """The ``Host`` allow-list of a server bound to ``bound``.

    Bound to loopback: the loopback names and addresses, and the ``given`` names (the
    ``--host`` as typed, for the printed URL). Bound to other machines: also this machine's
    own names, and any address written literally (see :attr:`HostAllowList.addresses`).

    Args:
        bound: The address the server's socket is bound to.
        given: Names it is also reached by (``--host``, ``--allow-host``).
    """
    names = {host_name(name) for name in given if name}
    if is_loopback(bound):
        return HostAllowList(frozenset(names))
    names |= {socket.gethostname().lower(), socket.getfqdn().lower()}
    return HostAllowList(frozenset(names), addresses=True)
