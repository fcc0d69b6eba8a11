"""fetch_url's fetcher against real HTTP servers on loopback addresses: loopback is refused by
default, so each test that fetches permits 127.0.0.1 explicitly (allowed_private_networks), and
the refusals are shown at the first URL and at a redirect's hop, before anything connects."""

from __future__ import annotations

import datetime
import re
import socket
import ssl
from collections.abc import Iterator
from typing import Any

import pytest
from searx_server import FakeSearx, Handler, redirect_to, running_searx, send

from fruitctl.capabilities.web.bounds import BYTES_MAX
from fruitctl.capabilities.web.fetch import REDIRECTS_MAX, Fetcher
from fruitctl.capabilities.web.html_text import html_to_text
from fruitctl.capabilities.web.tools import FetchUrlInput, fetch_in_child
from fruitctl.domain.errors import (
    BackendUnavailable,
    ExecutionFailed,
    InvalidParams,
    NotFound,
    PermissionDenied,
    Timeout,
)
from fruitctl.domain.hosts import AddressRules, DomainRules
from fruitctl.tools.inputs import parse

LOOPBACK = Fetcher(DomainRules(), AddressRules(["127.0.0.1"]))
PAGE = (
    b"<!doctype html><html><head><title> A  page </title><style>p {color: red}</style>"
    b"<script>document.write('hidden')</script></head><body><h1>Fruit</h1>"
    b"<p>Apples &amp; pears</p><noscript>no script</noscript><ul><li>one</li><li>two</li></ul>"
    b"</body></html>"
)


def html(body: bytes = PAGE, content_type: str = "text/html; charset=utf-8") -> Any:
    return lambda h: send(h, 200, body, content_type=content_type)


@pytest.fixture
def other() -> Iterator[FakeSearx]:
    with running_searx() as server:
        yield server


@pytest.fixture
def on_127_0_0_2() -> Iterator[FakeSearx]:
    """A server on another loopback address, 127.0.0.2: one 127.0.0.1/32 does not permit."""
    with running_searx("127.0.0.2") as server:
        server.respond = html()
        yield server


# -- what comes back ---------------------------------------------------------------------------


def test_a_page_comes_back_as_its_text(searx: FakeSearx) -> None:
    searx.respond = html()
    answer = LOOPBACK.fetch(f"{searx.url}/fruit?kind=all")

    assert answer == {
        "url": f"{searx.url}/fruit?kind=all",
        "final_url": f"{searx.url}/fruit?kind=all",
        "redirects": [],
        "status": 200,
        "content_type": "text/html; charset=utf-8",
        "title": "A page",
        "text": "Fruit\n\nApples & pears\n\none\n\ntwo",
        "note": None,
        "cut": False,
        "cut_reason": None,
        "bytes_read": len(PAGE),
    }
    assert searx.paths == ["/fruit?kind=all"]


def test_scripts_styles_and_hidden_content_are_dropped() -> None:
    text, title = html_to_text(
        "<p>seen<script>var a = '<p>not seen</p>';</script><style>b{}</style>"
        "<template><p>nor this</p></template> too</p><svg><text>drawn</text></svg>"
    )
    assert text == "seen too" and title is None


def test_the_charset_of_the_page_is_used(searx: FakeSearx) -> None:
    body = "<meta charset='iso-8859-1'><p>caffè</p>".encode("latin-1")
    searx.respond = html(body, "text/html")
    assert LOOPBACK.fetch(searx.url)["text"] == "caffè"


def test_plain_text_and_json_come_back_as_they_are(searx: FakeSearx) -> None:
    searx.respond = html(b'{"a": [1, 2]}', "application/json")
    assert LOOPBACK.fetch(searx.url)["text"] == '{"a": [1, 2]}'


def test_a_binary_body_is_not_shown_and_says_so(searx: FakeSearx) -> None:
    searx.respond = html(b"\x89PNG\r\n\x1a\n\0\0\0", "image/png")
    answer = LOOPBACK.fetch(searx.url)
    assert answer["text"] is None and answer["bytes_read"] == 11
    assert "binary (image/png)" in answer["note"]


def test_an_error_status_is_still_an_answer(searx: FakeSearx) -> None:
    searx.respond = lambda h: send(h, 404, b"<p>Gone</p>", content_type="text/html")
    answer = LOOPBACK.fetch(searx.url)
    assert (answer["status"], answer["text"]) == (404, "Gone")


# -- caps --------------------------------------------------------------------------------------


@pytest.mark.parametrize("declare_length", [True, False])
def test_the_body_is_cut_at_the_size_cap(searx: FakeSearx, declare_length: bool) -> None:
    body = b"x" * 300_000
    searx.respond = lambda h: send(
        h, 200, body, declare_length=declare_length, content_type="text/plain"
    )
    answer = LOOPBACK.fetch(searx.url, max_bytes=1000)
    assert answer["cut"] is True and answer["cut_reason"] == "size"
    assert answer["bytes_read"] == 1000 and answer["text"] == "x" * 1000


def test_a_body_that_stalls_is_cut_at_the_time_cap(searx: FakeSearx) -> None:
    def stall(h: Handler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/plain")
        h.send_header("Content-Length", "1000")
        h.end_headers()
        h.wfile.write(b"first part")
        h.wfile.flush()
        h.server.released.wait(5)

    searx.respond = stall
    answer = LOOPBACK.fetch(searx.url, timeout=1)
    assert (answer["text"], answer["cut"], answer["cut_reason"]) == ("first part", True, "time")


def test_no_answer_within_the_time_cap_is_a_timeout(searx: FakeSearx) -> None:
    searx.respond = lambda h: h.server.released.wait(5)
    with pytest.raises(Timeout, match="did not answer within 1 s"):
        LOOPBACK.fetch(searx.url, timeout=1)


def test_the_caps_are_bounded_in_the_input() -> None:
    with pytest.raises(InvalidParams):
        parse(FetchUrlInput, {"url": "http://x.org", "max_bytes": BYTES_MAX + 1}, "fetch_url")
    with pytest.raises(InvalidParams):
        parse(FetchUrlInput, {"url": "http://x.org", "timeout_seconds": 0}, "fetch_url")


# -- redirects ---------------------------------------------------------------------------------


def test_redirects_are_followed_and_listed(searx: FakeSearx, other: FakeSearx) -> None:
    searx.respond = redirect_to(f"{other.url}/landing")
    other.respond = html(b"<p>Landed</p>")
    answer = LOOPBACK.fetch(f"{searx.url}/start")
    assert answer["final_url"] == f"{other.url}/landing"
    assert answer["redirects"] == [f"{other.url}/landing"] and answer["text"] == "Landed"


def test_a_relative_redirect_is_resolved_against_the_page(searx: FakeSearx) -> None:
    def respond(h: Handler) -> None:
        if h.path == "/a/b":
            send(h, 301, b"", Location="../c")
        else:
            send(h, 200, b"here", content_type="text/plain")

    searx.respond = respond
    answer = LOOPBACK.fetch(f"{searx.url}/a/b")
    assert answer["final_url"] == f"{searx.url}/c" and answer["text"] == "here"


def test_endless_redirects_stop_at_the_hop_cap(searx: FakeSearx) -> None:
    searx.respond = redirect_to(f"{searx.url}/again")
    with pytest.raises(ExecutionFailed, match=f"more than {REDIRECTS_MAX} times"):
        LOOPBACK.fetch(searx.url)
    assert len(searx.paths) == REDIRECTS_MAX + 1


@pytest.mark.parametrize(
    ("location", "words"),
    [
        ("http://169.254.169.254/latest/meta-data/", "cloud metadata address"),
        ("http://[fd00:ec2::254]/", "cloud metadata address"),
        ("http://10.0.0.1/admin", "10.0.0.1 is a loopback, link-local, private"),
        ("http://[::1]:1/", "::1 is a loopback"),
        ("http://0.0.0.0/", "unspecified or multicast"),
        ("http://2130706434/", "127.0.0.2 is a loopback"),  # 127.0.0.2 written as a number
        ("file:///etc/passwd", "must use http or https, not 'file'"),
    ],
)
def test_a_redirect_to_a_refused_address_is_refused_at_that_hop(
    searx: FakeSearx, location: str, words: str
) -> None:
    searx.respond = redirect_to(location)
    with pytest.raises((PermissionDenied, InvalidParams), match="the redirect from") as refused:
        LOOPBACK.fetch(searx.url)
    assert words in refused.value.message
    assert searx.paths == ["/"]  # the first hop was fetched, nothing after it


def test_a_refused_hop_is_never_connected_to(searx: FakeSearx, on_127_0_0_2: FakeSearx) -> None:
    """127.0.0.2 answers (it is this machine), yet the redirect to it is refused unasked."""
    searx.respond = redirect_to(f"http://127.0.0.2:{on_127_0_0_2.port}/secret")
    with pytest.raises(PermissionDenied, match=re.escape("127.0.0.2 is a loopback")):
        LOOPBACK.fetch(searx.url)
    assert on_127_0_0_2.paths == []
    widened = Fetcher(DomainRules(), AddressRules(["127.0.0.0/8"]))
    assert widened.fetch(searx.url)["final_url"].endswith("/secret")  # it was reachable
    assert on_127_0_0_2.paths == ["/secret"]


# -- the first URL -----------------------------------------------------------------------------


def test_loopback_is_refused_by_default(searx: FakeSearx) -> None:
    with pytest.raises(PermissionDenied, match=re.escape("127.0.0.1 is a loopback")) as refused:
        Fetcher().fetch(searx.url)
    assert "allowed_private_networks" in refused.value.message
    assert searx.paths == []


def test_a_name_is_judged_by_the_address_it_resolves_to(searx: FakeSearx) -> None:
    with pytest.raises(PermissionDenied, match=r"localhost resolves to (127\.0\.0\.1|::1);"):
        Fetcher().fetch(f"http://localhost:{searx.port}/")
    assert searx.paths == []


def test_the_connection_goes_to_the_address_checked(
    searx: FakeSearx, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name looked up once: a second lookup (DNS rebinding) would say 10.0.0.1."""
    real = socket.getaddrinfo
    lookups: list[str] = []

    def rebinding(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != "rebind.test":
            return real(host, port, *args, **kwargs)
        lookups.append(host)
        address = "127.0.0.1" if len(lookups) == 1 else "10.0.0.1"
        return real(address, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    seen: list[str | None] = []
    searx.respond = lambda h: (seen.append(h.headers["Host"]), html()(h))
    answer = LOOPBACK.fetch(f"http://rebind.test:{searx.port}/")
    assert answer["status"] == 200 and lookups == ["rebind.test"]
    assert seen == [f"rebind.test:{searx.port}"]  # the name still travels as the Host


def test_domain_rules_apply_as_for_web_search(searx: FakeSearx) -> None:
    forbidden = Fetcher(DomainRules(None, ["127.0.0.1"]), AddressRules(["127.0.0.1"]))
    with pytest.raises(PermissionDenied, match=re.escape("'127.0.0.1' is in forbidden_domains")):
        forbidden.fetch(searx.url)
    elsewhere = Fetcher(DomainRules(["example.org"]), AddressRules(["127.0.0.1"]))
    with pytest.raises(PermissionDenied, match="not in allowed_domains"):
        elsewhere.fetch(searx.url)
    assert searx.paths == []


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("ftp://example.org/file", "must use http or https"),
        ("javascript:alert(1)", "must use http or https"),
        ("http://user:secret@example.org/", "user name or password"),
        ("http://exa mple.org/", "spaces"),
        ("http:///nohost", "no valid host"),
        ("http://example.org:99999/", "not a valid URL"),
    ],
)
def test_urls_that_are_not_plain_http_are_refused(url: str, words: str) -> None:
    with pytest.raises(InvalidParams, match=words):
        Fetcher().fetch(url)


def test_a_name_that_does_not_exist_is_not_found() -> None:
    with pytest.raises(NotFound, match=re.escape("no host named 'nothing-here.invalid'")):
        Fetcher().fetch("http://nothing-here.invalid/")


def test_nothing_listening_is_backend_unavailable(searx: FakeSearx) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(BackendUnavailable, match="Could not connect"):
        LOOPBACK.fetch(f"http://127.0.0.1:{port}/")


# -- the addresses -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "192.168.1.1", "100.64.0.1",
        "169.254.1.1", "192.0.2.1", "240.0.0.1", "255.255.255.255", "::1", "fe80::1",
        "fc00::1", "fd12:3456::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::a00:1",
        "2002:7f00:1::1", "2001:db8::1",
    ],
)  # fmt: skip
def test_private_addresses_are_refused(address: str) -> None:
    assert "loopback, link-local, private or reserved" in (AddressRules().refusal(address) or "")


@pytest.mark.parametrize("address", ["0.0.0.0", "::", "224.0.0.1", "239.1.2.3", "ff02::1"])
def test_unspecified_and_multicast_are_always_refused(address: str) -> None:
    assert "unspecified or multicast" in (
        AddressRules(["0.0.0.0/0", "::/0"]).refusal(address) or ""
    )


@pytest.mark.parametrize(
    "address",
    ["169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254", "192.0.0.192"],
)
def test_metadata_addresses_are_refused_even_inside_an_allowed_network(address: str) -> None:
    everything = AddressRules(["0.0.0.0/0", "::/0"])
    assert "cloud metadata address" in (everything.refusal(address) or "")


@pytest.mark.parametrize("address", ["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111"])
def test_public_addresses_are_permitted(address: str) -> None:
    assert AddressRules().refusal(address) is None


def test_an_allowed_network_permits_what_it_holds_and_nothing_else() -> None:
    intranet = AddressRules(["10.20.0.0/16", "fd00:1::/64"])
    assert intranet.refusal("10.20.3.4") is None and intranet.refusal("fd00:1::5") is None
    assert intranet.refusal("10.21.0.1") is not None and intranet.refusal("127.0.0.1") is not None


def test_an_allowed_network_that_is_not_one_is_refused() -> None:
    with pytest.raises(ValueError, match="'intranet' is not an IP address or network"):
        AddressRules(["intranet"])
    with pytest.raises(TypeError):
        AddressRules("10.0.0.0/8")


# -- the child's side --------------------------------------------------------------------------


def test_the_child_applies_the_rules_it_is_sent(searx: FakeSearx) -> None:
    searx.respond = html(b"<p>child</p>")
    args = {"url": searx.url, "max_bytes": 100, "timeout_seconds": 5}
    permitted = {"args": args, "allowed_private_networks": ["127.0.0.1"]}
    assert fetch_in_child(permitted)["text"] == "child"
    with pytest.raises(PermissionDenied):
        fetch_in_child({"args": args})
    with pytest.raises(InvalidParams, match="rules cannot be read"):
        fetch_in_child({"args": args, "allowed_private_networks": ["nope"]})
    with pytest.raises(InvalidParams):
        fetch_in_child({"args": {**args, "url": 5}})


def test_only_fetch_urls_child_asks_for_the_network() -> None:
    from fruitctl.capabilities import all_tools
    from fruitctl.sandbox import Limits

    asking = [t.name for t in all_tools() if t.child_limits is not None and t.child_limits.network]
    assert asking == ["fetch_url"] and Limits().network is False
    with pytest.raises(InvalidParams, match=r"Limits\.network"):
        Limits(network="yes")  # type: ignore[arg-type]


# -- TLS: the name is verified while the connection goes to the checked address ---------------


def _certificates(tmp_path: Any) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """A certificate authority of the test's own and a server certificate it signed for the
    name 'localhost' only: (the server's context, a client context trusting that authority)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)

    def made(subject: str, key: Any, issuer: str, signer: Any, ca: bool) -> x509.Certificate:
        builder = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
            .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(hours=1))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        )
        if not ca:
            names = x509.SubjectAlternativeName([x509.DNSName("localhost")])
            builder = builder.add_extension(names, critical=False)
        return builder.sign(signer, hashes.SHA256())

    ca_key, leaf_key = (
        ec.generate_private_key(ec.SECP256R1()),
        ec.generate_private_key(ec.SECP256R1()),
    )
    ca = made("fetch test CA", ca_key, "fetch test CA", ca_key, True)
    leaf = made("localhost", leaf_key, "fetch test CA", ca_key, False)
    pem = serialization.Encoding.PEM
    (tmp_path / "leaf.pem").write_bytes(
        leaf.public_bytes(pem)
        + leaf_key.private_bytes(
            pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(tmp_path / "leaf.pem")
    client = ssl.create_default_context(cadata=ca.public_bytes(pem).decode())
    return server, client


def test_https_checks_the_name_while_connecting_to_the_checked_address(tmp_path: Any) -> None:
    server_side, trusting = _certificates(tmp_path)
    with running_searx() as server:
        server.socket = server_side.wrap_socket(server.socket, server_side=True)
        server.respond = html(b"<p>secure</p>")
        fetcher = Fetcher(DomainRules(), AddressRules(["127.0.0.1", "::1"]), trusting)
        answer = fetcher.fetch(f"https://localhost:{server.port}/")
        assert answer["text"] == "secure"
        with pytest.raises(BackendUnavailable):  # the certificate names localhost, not the IP
            fetcher.fetch(f"https://127.0.0.1:{server.port}/")
        with pytest.raises(BackendUnavailable):  # nor does the system trust the test's CA
            LOOPBACK.fetch(f"https://localhost:{server.port}/")
