"""The HTTP API's own client (what the CLI elsewhere uses): each way to fail is one domain error
naming the URL, never the token. A real TLS server on a loopback port, with a certificate made
here for another host name, stands for the gateway behind a proxy reached by the wrong name."""

from __future__ import annotations

import datetime
import http.server
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from fruitctl.domain.errors import BackendUnavailable, InvalidParams
from fruitctl.transports.http.client import ApiClient, check_url, segment


def _certificate(directory: Path, name: str) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = directory / "cert.pem", directory / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[str]:
    cert, key = _certificate(tmp_path, "gateway.example")
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_certificate_for_another_name_is_one_line_about_tls(tls_server: str) -> None:
    client = ApiClient(tls_server, "secret-token-value")
    try:
        with pytest.raises(BackendUnavailable) as failed:
            client.get("/health")
    finally:
        client.close()
    message = failed.value.message
    assert message.startswith(f"TLS to {tls_server} failed: ")
    assert "certificate" in message and "host name" in message
    assert "secret-token-value" not in message and "\n" not in message


def test_urls_and_path_segments_are_checked() -> None:
    assert check_url(" http://mac-mini:8765/ ") == "http://mac-mini:8765"
    for bad in ("mac-mini:8765", "ftp://x", "http://", "http://u:p@x:1", "http://x/?a=1"):
        with pytest.raises(InvalidParams):
            check_url(bad)
    assert segment("../config/x") == "..%2Fconfig%2Fx"
    assert segment("..") == "%2E%2E"
