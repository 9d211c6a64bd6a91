"""``spies-lies serve``: the LAN address, the QR, and the database migrations."""

from __future__ import annotations

import argparse

import sqlalchemy as sa

from companion import address, serve
from companion.web import MIGRATIONS


def test_lan_address_skips_loopback_and_prefers_the_lan():
    assert address.lan_ipv4([("lo", "127.0.0.1"), ("eth0", "192.168.1.20")]) == "192.168.1.20"
    assert address.lan_ipv4([("docker0", "172.17.0.1"), ("wlan0", "10.0.0.7"),
                           ("lo", "127.0.0.1")]) in ("10.0.0.7",)
    assert address.lan_ipv4([("lo", "127.0.0.1"), ("eth0", "169.254.3.3")]) != "169.254.3.3"


def test_this_machines_address_is_not_localhost():
    ip = address.lan_ipv4()
    url = serve.public_url(argparse.Namespace(public_url=None, port=8000))
    assert url == f"http://{ip}:8000"
    assert "localhost" not in url
    if any(not a.startswith("127.") for _, a in address.interface_addresses()):
        assert not ip.startswith("127.")


def test_public_url_override_and_terminal_qr():
    args = argparse.Namespace(public_url="https://abc.example.net/", port=8000)
    assert serve.public_url(args) == "https://abc.example.net"
    qr = serve.qr_ascii("http://192.168.1.20:8000/")
    assert len(qr.splitlines()) > 10 and "█" in qr


def test_qr_on_the_host_page_holds_the_join_address(table, client, app):
    host = table()
    app.config["PUBLIC_URL"] = "http://192.168.1.20:8000"
    import qrcode
    # the SVG is drawn from exactly this text; check the same text gives the same picture
    svg = client.get(f"/qr/{host.code}.svg").get_data(as_text=True)
    import io

    import qrcode.image.svg
    buf = io.BytesIO()
    qrcode.make(f"http://192.168.1.20:8000/j/{host.code}",
                image_factory=qrcode.image.svg.SvgPathImage, border=2, box_size=10).save(buf)
    assert svg == buf.getvalue().decode()


def test_migrations_bring_an_empty_database_up_to_date(tmp_path):
    from companion.web import create_app
    url = f"sqlite:///{tmp_path / 'fresh.sqlite'}"
    create_app({"TESTING": True, "SECRET_KEY": "t", "SQLALCHEMY_DATABASE_URI": url})
    engine = sa.create_engine(url)
    insp = sa.inspect(engine)
    assert {"table", "seat", "event", "receipt", "alembic_version"} <= set(insp.get_table_names())
    with engine.connect() as c:
        head = max(f.name[:4] for f in (MIGRATIONS / "versions").glob("0*.py"))
        assert c.execute(sa.text("select version_num from alembic_version")).scalar() == head
    # a second start on the same database keeps it (and its games)
    with engine.begin() as c:
        c.execute(sa.text("insert into \"table\" (code, wall_distance, teams, host_hash, version, "
                          "created, updated) values ('KEEP1', 4, 0, 'x', 1, '2026-01-01', "
                          "'2026-01-01')"))
    create_app({"TESTING": True, "SECRET_KEY": "t", "SQLALCHEMY_DATABASE_URI": url})
    with engine.connect() as c:
        assert c.execute(sa.text("select code from \"table\"")).scalar() == "KEEP1"
    engine.dispose()


def test_secret_key_is_generated_once_into_instance(tmp_path, monkeypatch):
    from companion.web import _secret_key
    k1 = _secret_key(tmp_path)
    assert len(k1) == 64 and _secret_key(tmp_path) == k1
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0


def test_a_server_on_loopback_only_promises_phones_nothing(capsys, monkeypatch):
    """Issue 11: with --host 127.0.0.1 the address and QR are this machine's own, and a
    sentence says why phones on the network cannot join."""
    args = argparse.Namespace(public_url=None, port=8123, host="127.0.0.1")
    assert serve.public_url(args) == "http://127.0.0.1:8123"
    args.host = "0.0.0.0"
    assert serve.public_url(args) != "http://127.0.0.1:8123" or address.lan_ipv4() == "127.0.0.1"
