"""The schema's migrations go up and down on the database the suite runs on
(SQLite, or PostgreSQL when DATABASE_URL names one), keeping the games."""

from __future__ import annotations

import sqlalchemy as sa
from flask_migrate import downgrade, upgrade

from companion.store.models import db
from companion.web import MIGRATIONS

from .conftest import ORIGIN


def _columns(table: str) -> set[str]:
    return {c["name"] for c in sa.inspect(db.engine).get_columns(table)}


def _revision() -> str:
    with db.engine.connect() as c:
        return c.execute(sa.text("select version_num from alembic_version")).scalar()


def test_each_migration_goes_down_and_up_again_keeping_the_tables(app, client):
    r = client.post("/api/tables", json={"wall_distance": 5, "idempotency_key": "mig-key-001"},
                    headers={"Origin": ORIGIN})
    code = r.get_json()["code"]
    with app.app_context():
        assert _revision() == "0016"
        assert all("group_id" in _columns(t) for t in ("table", "player", "game"))
        assert "play_group" in sa.inspect(db.engine).get_table_names()
        assert "group_id" in _columns("intel_card")
        downgrade(directory=str(MIGRATIONS), revision="0015")
        assert _revision() == "0015" and {"practice", "lessons_from"} <= _columns("table")
        assert "taught" in _columns("player")
        assert not any("group_id" in _columns(t) for t in ("table", "player", "game"))
        assert "play_group" not in sa.inspect(db.engine).get_table_names()
        assert "group_id" not in _columns("intel_card")
        downgrade(directory=str(MIGRATIONS), revision="0014")
        assert _revision() == "0014" and "accepted" in _columns("table")
        assert {"counted", "began"} <= _columns("game")
        assert not {"practice", "lessons_from"} & _columns("table")
        assert "taught" not in _columns("player")
        downgrade(directory=str(MIGRATIONS), revision="0013")
        assert _revision() == "0013" and "went_on" in _columns("table")
        assert "accepted" not in _columns("table") and "counted" not in _columns("game")
        downgrade(directory=str(MIGRATIONS), revision="0012")
        assert _revision() == "0012" and {"chances", "chance_series"} <= _columns("table")
        assert "went_on" not in _columns("table")
        downgrade(directory=str(MIGRATIONS), revision="0011")
        assert _revision() == "0011" and "chances" not in _columns("table")
        assert "screen" in _columns("seat")
        downgrade(directory=str(MIGRATIONS), revision="0010")
        assert _revision() == "0010" and "screen" not in _columns("seat")
        assert {"mu", "sigma", "rated"} <= _columns("player")
        assert {"game", "game_side"} <= set(sa.inspect(db.engine).get_table_names())
        downgrade(directory=str(MIGRATIONS), revision="0009")
        assert "game" not in sa.inspect(db.engine).get_table_names()
        assert not {"mu", "sigma", "rated"} & _columns("player")
        assert _revision() == "0009" and {"imported", "digest"} <= _columns("table")
        downgrade(directory=str(MIGRATIONS), revision="0008")
        assert _revision() == "0008" and "rematch" in _columns("table")
        assert not {"imported", "digest"} & _columns("table")
        downgrade(directory=str(MIGRATIONS), revision="0007")
        assert _revision() == "0007" and "player_id" in _columns("seat")
        assert "finished" in _columns("table") and "rematch" not in _columns("table")
        downgrade(directory=str(MIGRATIONS), revision="0006")
        assert "player" not in sa.inspect(db.engine).get_table_names()
        assert "player_id" not in _columns("seat") and "finished" not in _columns("table")
        assert _revision() == "0006" and "intel_card" in sa.inspect(db.engine).get_table_names()
        downgrade(directory=str(MIGRATIONS), revision="0005")
        assert "intel_card" not in sa.inspect(db.engine).get_table_names()
        assert _revision() == "0005" and "first_game" in _columns("table")
        downgrade(directory=str(MIGRATIONS), revision="0004")
        assert _revision() == "0004" and "first_game" not in _columns("table")
        assert "deduction" in _columns("table")
        downgrade(directory=str(MIGRATIONS), revision="0003")
        assert _revision() == "0003" and "deduction" not in _columns("table")
        assert {"kind", "actor"} <= _columns("receipt")
        downgrade(directory=str(MIGRATIONS), revision="0002")
        assert _revision() == "0002" and "create_key" in _columns("table")
        assert not {"kind", "actor"} & _columns("receipt")
        downgrade(directory=str(MIGRATIONS), revision="0001")
        assert _revision() == "0001" and "create_key" not in _columns("table")
        with db.engine.connect() as c:
            assert c.execute(sa.text('select wall_distance from "table"')).scalar() == 5
        upgrade(directory=str(MIGRATIONS))
        assert _revision() == "0016" and "create_key" in _columns("table")
        assert "group_id" in _columns("table") and "group_id" in _columns("intel_card")
        assert "practice" in _columns("table") and "taught" in _columns("player")
        assert "accepted" in _columns("table") and {"counted", "began"} <= _columns("game")
        assert {"chances", "chance_series", "went_on"} <= _columns("table")
        assert "screen" in _columns("seat")
        assert {"table_id", "played", "ending"} <= _columns("game")
        assert {"rematch", "imported", "digest"} <= _columns("table")
        assert {"player_id"} <= _columns("seat") and "finished" in _columns("table")
        assert {"ranks", "seen"} <= _columns("intel_card")
        assert {"deduction", "first_game"} <= _columns("table")
        assert {"kind", "actor"} <= _columns("receipt")
        db.session.remove()
    assert client.get(f"/api/tables/{code}/state").status_code == 200
