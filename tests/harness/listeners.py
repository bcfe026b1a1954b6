"""Counting HTTP listeners on loopback (IPv4 and IPv6), to prove the page never reaches them."""
from __future__ import annotations

import http.server
import socket
import threading


def ipv6_loopback_available() -> bool:
    """True if this machine can listen on [::1]."""
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as sock:
            sock.bind(("::1", 0))
        return True
    except OSError:
        return False


class CountingListener:
    """An http.server on `host` (port 0 = any) counting every connection it accepts.

    A connection counts even if it never sends a valid request (a WebRTC TURN probe, a
    preconnect): reaching the port at all is what must not happen.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        listener = self
        self.connections = 0
        self.paths: list[str] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                listener.paths.append(self.path)
                self.send_response(200)
                self.send_header("Access-Control-Allow-Origin", "*")
                self.end_headers()
                self.wfile.write(b"reached")

            do_POST = do_GET

            def log_message(self, *args) -> None:
                """Quiet: the counts are the output."""

        class Server(http.server.ThreadingHTTPServer):
            address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
            daemon_threads = True

            def verify_request(self, request, client_address) -> bool:
                listener.connections += 1
                return True

        self.server = Server((host, port), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        """Stop serving and free the port."""
        self.server.shutdown()
        self.server.server_close()
