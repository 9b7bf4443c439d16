"""The client's address behind a reverse proxy (werkzeug's ProxyFix), trusted only from the proxy.

TILEFOLD_TRUSTED_PROXIES = how many proxies stand in front of the node (0, the default: none, the
connection's address is the client's). With N > 0, a request whose connection comes from one of
TILEFOLD_PROXY_ADDRESSES (addresses or networks, comma-separated; default 127.0.0.1,::1) takes its
client address from the N-th X-Forwarded-For entry from the right (and its scheme from
X-Forwarded-Proto); a request from anywhere else keeps its connection's address, whatever headers it
sends. The rate limits and the waiting caps (service/http/limits.py, service/infra/waiters.py) count per that
address. deploy/nginx-tilefold.conf writes X-Forwarded-For itself, so a client cannot forge it.
"""

from __future__ import annotations

import ipaddress
from typing import Any, Callable, Iterable

from werkzeug.middleware.proxy_fix import ProxyFix


def networks(spec: str) -> list[Any]:
    """'127.0.0.1, ::1, 10.0.0.0/8' as networks (a plain address is a network of one)."""
    return [ipaddress.ip_network(part.strip(), strict=False) for part in spec.split(",") if part.strip()]


class TrustedProxies:
    """WSGI middleware: ProxyFix for requests from the proxies, the plain app for everyone else."""

    def __init__(self, app: Callable, count: int, proxies: Iterable[Any]) -> None:
        self.app = app
        self.fixed = ProxyFix(app, x_for=count, x_proto=count)
        self.proxies = list(proxies)

    def __call__(self, environ: dict, start_response: Callable) -> Any:
        if self.from_proxy(environ.get("REMOTE_ADDR", "")):
            return self.fixed(environ, start_response)
        return self.app(environ, start_response)

    def from_proxy(self, address: str) -> bool:
        try:
            found = ipaddress.ip_address(address.split("%", 1)[0])
        except ValueError:
            return False
        return any(found in network for network in self.proxies)


def install(app: Any) -> None:
    count = int(app.config.get("TRUSTED_PROXIES") or 0)
    if count > 0:
        app.wsgi_app = TrustedProxies(app.wsgi_app, count, networks(app.config["PROXY_ADDRESSES"]))
