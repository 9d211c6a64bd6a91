"""``spies-lies serve``: the LAN address, the QR, and the database migrations."""

from __future__ import annotations

import argparse

import pytest
import sqlalchemy as sa

from companion.edge import address
from companion.run import serve
from companion.web import MIGRATIONS

from .conftest import read_qr

# the serve command: addresses, options, messages and its own SQLite files (the
# migrations on PostgreSQL: test_migrations.py, test_upgrades.py)
pytestmark = pytest.mark.anydb


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


def test_the_terminal_qr_says_it_is_for_the_big_screen(tmp_path, capsys):
    """The QR printed at the start opens the first page on the big screen; phones scanned
    it to join, and nothing said whose it was (issue 52)."""
    args = argparse.Namespace(host="0.0.0.0", port=8000, public_url="http://192.168.1.20:8000")
    serve._banner(args, "http://192.168.1.20:8000", tmp_path)
    text = capsys.readouterr().out
    qr = text.index("█")
    said = text.rindex("For the big screen", 0, qr)
    assert "this QR opens the" in text[said:qr] and "Phones join with the QR the big " \
        "screen then shows." in " ".join(text[said:qr].split())


def test_qr_on_the_host_page_holds_the_join_address(table, client, app):
    host = table()
    app.config["PUBLIC_URL"] = "http://192.168.1.20:8000"
    # the picture the SVG draws (each row's dark runs) read back by a real decoder
    svg = client.get(f"/qr/{host.code}.svg").data
    assert read_qr(svg) == f"http://192.168.1.20:8000/j/{host.code}"


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


def test_a_port_already_taken_is_said_plainly_not_as_a_traceback(tmp_path, capsys,
                                                                 monkeypatch):
    """The first thing a group meets when a companion is still running in another window:
    one line that says so and what to do, exit status 2, nothing written."""
    import socket

    from companion.cli import main
    monkeypatch.setenv("SPIES_LIES_INSTANCE", str(tmp_path))
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    try:
        assert main(["serve", "--host", "127.0.0.1", "--port", str(port)]) == 2
    finally:
        taken.close()
    err = capsys.readouterr().err
    assert err.startswith(f"error: port {port} is already in use: is the companion already "
                          "running?")
    assert f"--port {port + 1}" in err and "Traceback" not in err
    assert main(["serve", "--host", "192.0.2.250", "--port", "0"]) == 2   # TEST-NET-1
    assert capsys.readouterr().err.startswith("error: 192.0.2.250 is not an address of "
                                              "this machine (--host)")
    assert list(tmp_path.iterdir()) == []          # refused before the database was made


def test_bad_serve_options_are_refused_before_anything_starts(capsys):
    """Numbers out of range and a public address phones could not open are refused with
    argparse's usage line and what is wrong, exit status 2: --threads 0 used to start a
    server that answered nothing, --threads -3 a traceback, --public-url with no scheme a
    QR code of bare text and a server that refused its own name (421)."""
    import pytest

    from companion.cli import build_parser
    refused = {
        ("--port", "99999"): "99999 is out of range: 0-65535",
        ("--port", "eight"): "'eight' is not a whole number",
        ("--threads", "0"): "0 is out of range: 1-1024",
        ("--threads", "-3"): "-3 is out of range: 1-1024",
        ("--client-connections", "-1"): "-1 is out of range: 0 or more",
        ("--trust-proxy", "-1"): "-1 is out of range: 0-16",
        ("--workers", "0"): "0 is out of range: 1-256",
        ("--public-url", "tables.example.org"):
            "has no scheme: write https://tables.example.org (or http://…)",
        ("--public-url", "192.168.1.20:8000"): "write https://192.168.1.20:8000",
        ("--public-url", "ftp://tables.example.org"): "must start with https:// or http://",
        ("--public-url", "https://"): "names no host",
        ("--public-url", "https://example.org/spies"): "not under a path",
        ("--public-url", "https://example.org:99999"): "is not an address",
    }
    for option, said in refused.items():
        with pytest.raises(SystemExit) as stop:
            build_parser().parse_args(["serve", *option])
        assert stop.value.code == 2, option
        err = capsys.readouterr().err
        assert f"argument {option[0]}: " in err and said in err, (option, err)
    ok = build_parser().parse_args(["serve", "--public-url", "https://tables.example.org/",
                                    "--port", "0", "--client-connections", "0"])
    assert (ok.public_url, ok.port, ok.client_connections) == (
        "https://tables.example.org/", 0, 0)


def test_a_database_that_cannot_be_used_is_said_in_one_line(tmp_path, capsys, monkeypatch):
    """DATABASE_URL as people write it: postgres:// and postgresql:// mean the driver
    the companion installs; another database, an address that is not one, a PostgreSQL
    that refuses, or an instance folder that cannot be made: one line saying so (the
    password hidden), exit status 2, no traceback."""
    import sys

    from companion.cli import main
    from companion.store import database
    assert database.url({"DATABASE_URL": "postgresql://u@h/d"}) == "postgresql+psycopg://u@h/d"
    assert database.on_postgresql({"DATABASE_URL": "postgres://u@h/d"})
    monkeypatch.setenv("SPIES_LIES_INSTANCE", str(tmp_path / "instance"))
    said = {
        "mysql://u@db.example.org/tables": "error: DATABASE_URL is mysql: the companion "
                                           "keeps its games in PostgreSQL",
        "not an address": "error: DATABASE_URL is not a database address: write "
                          "postgresql://",
        "postgresql://ann:secret@127.0.0.1:1/tables":
            "error: cannot open the database (postgresql+psycopg://ann:***@127.0.0.1:1/"
            "tables): connection failed",
    }
    for url, start in said.items():
        monkeypatch.setenv("DATABASE_URL", url)
        assert main(["serve", "--host", "127.0.0.1", "--port", "0"]) == 2, url
        err = capsys.readouterr().err
        assert err.startswith(start), err
        assert "Traceback" not in err and "secret" not in err and err.count("\n") == 1
        assert main(["ratings"]) == 2 and capsys.readouterr().err == err   # the same there
    monkeypatch.setitem(sys.modules, "psycopg", None)        # the driver not installed
    monkeypatch.setenv("DATABASE_URL", "postgresql://u@127.0.0.1/tables")
    assert main(["serve", "--port", "0"]) == 2
    assert "'spies-lies-companion[postgres]'" in capsys.readouterr().err
    monkeypatch.delenv("DATABASE_URL")
    (tmp_path / "instance" / "companion.sqlite").mkdir(parents=True)   # not a database file
    assert main(["serve", "--host", "127.0.0.1", "--port", "0"]) == 2
    assert capsys.readouterr().err == ("error: cannot open the database (companion.sqlite in "
                                       "the instance folder): unable to open database file\n")
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("SPIES_LIES_INSTANCE", str(tmp_path / "a-file" / "instance"))
    assert main(["serve", "--host", "127.0.0.1", "--port", "0"]) == 2
    assert capsys.readouterr().err.startswith(
        f"error: cannot use the instance folder {tmp_path / 'a-file' / 'instance'}: Not a "
        "directory")


def test_a_database_a_newer_companion_brought_up_to_date_is_left_as_it_is(tmp_path, capsys,
                                                                          monkeypatch):
    """A group that went back to an older copy of the companion (another laptop, a
    checkout of an older commit) after a newer one migrated their games: one line says
    so, and nothing is changed (the migrations stopped with "Can't locate revision")."""
    from companion.cli import main
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("SPIES_LIES_INSTANCE", str(tmp_path / "instance"))
    assert main(["ratings"]) == 0                      # the database made, as it is now
    capsys.readouterr()
    path = tmp_path / "instance" / "companion.sqlite"
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as c:
        c.execute(sa.text("UPDATE alembic_version SET version_num = '0099_from_the_future'"))
        tables = set(sa.inspect(c).get_table_names())
    for command in (["serve", "--host", "127.0.0.1", "--port", "0"], ["ratings"]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert err == ("error: the database (companion.sqlite in the instance folder) was "
                       "brought up to date by a newer version of the companion (revision "
                       "0099_from_the_future), which this one does not know: update this copy "
                       "of the companion, or use another instance folder or database\n"), err
    with engine.connect() as c:
        assert c.execute(sa.text("SELECT version_num FROM alembic_version")).scalar() == (
            "0099_from_the_future")
        assert set(sa.inspect(c).get_table_names()) == tables
    engine.dispose()


def test_a_second_server_on_the_same_sqlite_file_is_refused(tmp_path, capsys, monkeypatch):
    """Two servers on one SQLite file would each push only their own taps: a phone on
    one would not see what the other recorded. The second is refused, naming the first."""
    from companion.cli import main
    from companion.run import serve as serving
    monkeypatch.setenv("SPIES_LIES_INSTANCE", str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert serving.hold_sqlite_file(8000) is None            # the first, this process
    try:
        assert main(["serve", "--host", "127.0.0.1", "--port", "0"]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: a companion already serves the games in "
                              f"{tmp_path / 'companion.sqlite'} (process ")
        assert "at http://127.0.0.1:8000/): open that one, or stop it first" in err
    finally:
        while serving._HELD:
            serving._HELD.pop().close()
    assert serving.hold_sqlite_file(8001) is None            # free again once it stopped
    try:        # `spies-lies keeper` names the port of the companion serving these games
        assert main(["keeper"]) == 0
        assert capsys.readouterr().out.startswith("http://127.0.0.1:8001/keeper#once=")
    finally:
        serving._HELD.pop().close()
    assert main(["keeper"]) == 0                              # none serving them: 8000
    assert capsys.readouterr().out.startswith("http://127.0.0.1:8000/keeper#once=")


def test_ctrl_c_stops_the_server_with_one_line_and_no_trace(tmp_path):
    """Ctrl+C is how a group stops the companion: exit status 0 and a line saying nothing
    is lost, not gevent's 'KeyboardInterrupt' and a timestamp. Before, the banner: the
    addresses first, then the keeper link once, in its own labelled block, a link that
    works once and never holds the key itself (issue 50: a browser keeps every address it
    opened in its history)."""
    import http.client
    import json
    import os
    import re
    import signal
    import subprocess
    import sys

    env = {**os.environ, "SPIES_LIES_INSTANCE": str(tmp_path)}
    env.pop("DATABASE_URL", None)
    proc = subprocess.Popen([sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1",
                             "--port", "0"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert proc.stdout is not None
        banner = []
        for line in proc.stdout:                 # the banner's last line: serving
            banner.append(line)
            if line.startswith("Press Ctrl+C"):
                break
        text = "".join(banner)
        key = (tmp_path / "keeper_key").read_text().strip()
        assert key not in text and text.count("/keeper#") == 1
        block = text.index("Keeper link: for the browser of this machine only")
        assert block > text.index("On this machine:") and block > text.index("Listening on")
        port = int(re.search(r"On this machine: +http://127\.0\.0\.1:(\d+)/", text)[1])
        once = re.search(r"/keeper#once=(\S+)", text)[1]

        def claim() -> tuple[int, dict[str, str]]:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            try:
                c.request("POST", "/api/keeper/claim", json.dumps({"once": once}), {
                    "Content-Type": "application/json", "Origin": f"http://127.0.0.1:{port}"})
                r = c.getresponse()
                return r.status, json.loads(r.read())
            finally:
                c.close()
        assert claim() == (200, {"key": key})        # the keeper page trades it for the key
        status, body = claim()                       # ... once: the history's copy is dead
        assert status == 403 and body["code"] == "not_keeper"
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out
    assert out.strip() == "Stopped. Every recorded tap is kept: start it again to play on."
