"""Every request body of the JSON API, declared once (issue 51): the checks a request
meets and the request schemas of ``/api/openapi.json`` both come from these models.

Each field's type and limits are its check and its description; its :class:`Refuse`
keeps the words, code and field each refusal had when the checks were written by hand.
What depends on the table (a seat's part in team play, whether a tap is due, an event
the referee refuses) is judged by the table's own code after these checks.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, BeforeValidator, Field, WithJsonSchema, model_validator

from ..edge.fields import CODE_RE, HASH_RE, KEY_RE, NAME_MAX, SECRET_RE, person_name
from ..engine import N_, Msg
from ..play.tables import HELD_MAX
from .declared import COMPONENT, Body, Refuse, value_text, wrong


def ref(name: str) -> dict[str, str]:
    """A schema among the document's components (:func:`.declared.schema` writes the
    ``$ref``)."""
    return {COMPONENT: name}


# --- how fields are refused (the words of the checks written by hand before) -----------

def typed(what: str) -> Refuse:
    """A field of one kind: missing, or of another kind, it is named with ``what`` it must
    be (``off``: the words for the right kind out of its limits)."""
    return Refuse(
        missing=lambda name, v, body: Msg("the field '{name}' is missing ({what})", name=name,
                                          what=Msg(what)),
        bad=lambda name, v, body: Msg("the field '{name}' must be {what}, not {value}",
                                      name=name, what=Msg(what), value=value_text(v)))


#: a true/false field: absent is its default, null is refused
FLAG = Refuse(bad=lambda name, v, body: Msg("the field '{name}' must be true or false",
                                            name=name), null="bad")
#: a key a screen made for itself
OWN = Refuse(bad=lambda name, v, body: Msg("the field '{name}' must be a key of 32-128 "
                                           "letters, digits, - or _ made by this screen",
                                           name=name))
#: a person's name: missing (null too) or not one, in the same words
NAMED = Refuse(bad=lambda name, v, body: Msg(
    "the field '{name}' must be {what}", name=name,
    what=Msg("a name of 1-{n} letters, digits, spaces or signs", n=NAME_MAX)))
#: a seat's side
SIDED = Refuse(bad=lambda name, v, body: Msg("the field 'side' must be \"red\" or \"blue\""),
               missing_code="bad_field", null="bad")


def _part_words(name: str, v: Any, body: Any) -> Msg:
    if body.get("teams") is True:
        return Msg("in team play the field 'part' must be 1 (missions 1-2) or 2 (missions 3-4)")
    return Msg("without team play the field 'part' must be 0 or left out")


PARTED = Refuse(bad=_part_words)


def _named(v: str) -> str:
    """A person's name as a seat keeps it (:func:`.fields.person_name`)."""
    text = person_name(v)
    if text is None:
        raise ValueError("not a name")
    return text


# --- the types fields are made of --------------------------------------------------------

SIDE = Literal["red", "blue"]
KEY = Annotated[str, Field(pattern=KEY_RE.pattern)]
Side = Annotated[SIDE, WithJsonSchema(ref("Side"))]          # the components' Side
Part = Literal[0, 1, 2]
Key = Annotated[KEY, WithJsonSchema(ref("IdempotencyKey"))]
Secret = Annotated[str, Field(pattern=SECRET_RE.pattern, description="a key this screen made "
                              "for itself; only its hash is kept")]
Code = Annotated[str, Field(pattern=CODE_RE.pattern)]
Name = Annotated[str, AfterValidator(_named),
                 Field(json_schema_extra={"minLength": 1, "maxLength": NAME_MAX})]
KEY_WORDS = N_("a text of 8-64 letters, digits or -_.:")
KEYED = Refuse(
    missing=typed(KEY_WORDS).missing, bad=typed(KEY_WORDS).bad,
    off=lambda name, v, body: Msg("the field 'idempotency_key' must be 8-64 letters, "
                                  "digits or -_.:"))
FIRST_GAME = "a first game: the big screen explains each ability in one sentence the first " \
    "time it is activated"
CHANCES = "opt in to the live chance-to-win bar on the big screen and the watchers' phones " \
    "(issue 25)"
PRACTICE = "the practice round (issue 53): a short scripted round with every card face up, " \
    "both sides on the big screen unless 'screen' says otherwise, a learning game, never " \
    "counted; only the script's next step is taken"
DEDUCTION = "opt in to the deduction aid on the guess step"
SCREEN = "the seats entered on the big screen (issue 23), not by phones"
SCREEN_WORDS = Refuse(bad=lambda name, v, body: Msg("the field 'screen' must be a list of "
                                                    "seats: side, part, name"), null="bad")


def _screen_name(v: str) -> str:
    return v if v == "" else _named(v)


class ScreenSeat(Body):
    """A seat a new table seats on its big screen (``name``: else the side's name)."""

    side: Annotated[Side, replace(SIDED, field="screen.side")]
    part: Annotated[Part | None, Refuse(bad=_part_words, field="screen.part")] = None
    name: Annotated[str | None, AfterValidator(lambda v: v if v is None else _screen_name(v)),
                    Field(json_schema_extra={"maxLength": NAME_MAX}), NAMED] = None
    CHECKED = ("side", "part", "name")


Seats = Annotated[list[ScreenSeat], Field(max_length=4)]


# --- opening a table -------------------------------------------------------------------

class OpenTable(Body):
    """``POST /api/tables``: a new table (every field optional)."""

    wall_distance: Annotated[int, Field(ge=2, le=8), Refuse(
        bad=lambda name, v, body: Msg("the field 'wall_distance' must be a whole number 2-8"),
        null="bad")] = 4
    teams: Annotated[bool, FLAG] = False
    host_secret: Annotated[Secret | None, OWN] = None
    deduction: Annotated[bool, Field(description=DEDUCTION), FLAG] = False
    first_game: Annotated[bool, Field(description=FIRST_GAME), FLAG] = False
    practice: Annotated[bool, Field(description=PRACTICE), FLAG] = False
    chances: Annotated[bool, Field(description=CHANCES), FLAG] = False
    screen: Annotated[Seats, Field(description=SCREEN), SCREEN_WORDS] = []
    idempotency_key: Annotated[Key | None, KEYED] = None
    CHECKED = ("idempotency_key", "host_secret", "teams", "wall_distance", "deduction",
               "chances", "first_game", "practice", "screen")


class ImportRecord(Body):
    """``POST /api/tables/import``: a table from a game record."""

    record: Annotated[dict[str, Any], WithJsonSchema(ref("Record")), Refuse(
        bad=lambda name, v, body: Msg("the field 'record' must be a game record (a JSON object "
                                      "with format, options and events)"))]
    teams: Annotated[bool, FLAG] = False
    deduction: Annotated[bool, Field(description=DEDUCTION), FLAG] = False
    first_game: Annotated[bool, Field(description=FIRST_GAME), FLAG] = False
    chances: Annotated[bool, Field(description=CHANCES), FLAG] = False
    screen: Annotated[Seats, Field(description=SCREEN + "; a finished game's are ignored"),
                      SCREEN_WORDS] = []
    from_: Annotated[Code | None, Field(alias="from", description=(
        "the table of this server whose game the record is, going on at a new screen: when "
        "it is that game as it stands, the new table is not marked imported. Only with that "
        "table's host key or the keeper key as the bearer (else 403)")), Refuse(
        bad=lambda name, v, body: Msg("the field 'from' must be a table code"))] = None
    host_secret: Annotated[Secret | None, OWN] = None
    idempotency_key: Annotated[Key | None, KEYED] = None
    CHECKED = ("idempotency_key", "host_secret", "teams", "record", "deduction", "first_game",
               "chances", "from", "screen")


class Held(Body):
    """A table a screen holds a key of (refused as the list ``tables``)."""

    code: Code
    key: Annotated[str, Field(pattern=SECRET_RE.pattern,
                              description="the host screen's key or a seat's")]
    INNER = True


class Mine(Body):
    """``POST /api/tables/mine``: the games in play these keys belong to."""

    tables: Annotated[list[Held], Field(max_length=HELD_MAX), Refuse(
        bad=lambda name, v, body: Msg("the field 'tables' must list at most {n} tables, each a "
                                      "code and its key", n=HELD_MAX),
        missing_code="bad_field", null="bad")]


# --- a change of a table: every one carries its version and an idempotency key ---------------

def _answer(v: Any) -> Any:
    """An answer not offered is the whole view, as it always was."""
    return v if v in ("view", "delta", "none") else "view"


class Change(Body):
    """What every change of a table carries."""

    version: Annotated[int, Field(description="the table version this screen last saw"),
                       typed("the table version the phone last saw")]
    idempotency_key: Annotated[Key, KEYED]
    answer: Annotated[Literal["view", "delta", "none"], BeforeValidator(_answer), Field(
        description="delta: the answer carries what changed since `version` (set/del/add "
                    "operations) instead of the whole view, when the server still has that "
                    "view; none: only the new `version` (the live stream brings the change)"),
        Refuse(bad=lambda name, v, body: Msg("the body must be a JSON object"))] = "view"
    CHECKED: ClassVar[tuple[str, ...]] = ("idempotency_key", "version")


class Join(Change):
    """``POST /api/tables/{code}/seats``: sit down."""

    side: Annotated[Side, SIDED]
    name: Annotated[Name, NAMED]
    part: Annotated[Part | None, PARTED] = None
    secret: Annotated[Secret | None, OWN] = None
    player: Annotated[Secret | None, Field(description="the key this phone keeps for its "
                                           "player: the same person at every table"), OWN] = None
    CHECKED = ("idempotency_key", "version", "side", "part", "name", "secret", "player")


class Decision(Change):
    """``POST /api/tables/{code}/seats/{seat_id}/decision``."""

    approve: Annotated[bool, Refuse(bad=lambda name, v, body: Msg(
        "the field 'approve' must be true or false"), missing_code="bad_field", null="bad")]


EVENT = {"type": "object", "required": ["type"],
         "description": "a RECORD.md event; an exhaust or start may say \"random\": true to be "
                        "drawn by the server",
         "properties": {"type": {"type": "string", "enum": [
             "exhaust", "intel", "tokens", "start", "check"]}}}


class PostEvent(Change):
    """``POST /api/tables/{code}/events``: one event (the referee judges what it says)."""

    event: Annotated[dict[str, Any], WithJsonSchema(EVENT), Refuse(
        bad=lambda name, v, body: Msg("the field 'event' is missing or not an object"))]


STEP_WORDS = N_("deception, guess, actual or choice")
VALUE_WORDS = {"deception": N_("true or false"), "choice": N_("one of the offered choices")}
RANK_WORDS = N_("a rank 1-10")


def _value_words(kind: str) -> Any:
    def words(name: str, v: Any, body: Any) -> Msg:
        what = VALUE_WORDS.get(body.get("step"), RANK_WORDS)
        if kind == "off":
            return Msg("the field 'value' must be a rank 1-10")
        if kind == "missing":
            return Msg("the field '{name}' is missing ({what})", name=name, what=Msg(what))
        return Msg("the field '{name}' must be {what}, not {value}", name=name, what=Msg(what),
                   value=value_text(v))
    return words


class Tap(Change):
    """``POST /api/tables/{code}/draft``: one tap of the reveal being built."""

    step: Annotated[Literal["deception", "guess", "actual", "choice"], Refuse(
        missing=typed(STEP_WORDS).missing, bad=typed(STEP_WORDS).bad,
        off=lambda name, v, body: Msg("the field 'step' must be deception, guess, actual or "
                                      "choice"))]
    value: Annotated[Any, Field(description="bool (deception), rank (guess, actual) or a "
                                "choice text"),
                     Refuse(bad=_value_words("bad"), off=_value_words("off"),
                            missing=_value_words("missing"))]

    @model_validator(mode="after")
    def _fits_step(self) -> Tap:
        """A deception is true or false, a choice a text, a guess or a card a rank 1-10."""
        v = self.value
        if self.step == "deception" and type(v) is not bool:
            raise wrong("value")
        if self.step == "choice" and not isinstance(v, str):
            raise wrong("value")
        if self.step in ("guess", "actual"):
            if type(v) is not int:
                raise wrong("value")
            if not 1 <= v <= 10:
                raise wrong("value", "off")
        return self


class Undo(Change):
    """``POST /api/tables/{code}/undo``: take back the last tap or event."""

    confirm: Annotated[bool | None, Field(description="the other side's answer to an undo "
                                          "that waits for it: true agrees, false refuses"),
                       Refuse(bad=lambda name, v, body: Msg("the field 'confirm' must be true "
                                                            "or false"))] = None


class TeachAgain(Change):
    """``POST /api/tables/{code}/teach``: the players seated forget the lessons they saw."""


class ScreenSide(Change):
    """``POST /api/tables/{code}/screen``: the big screen takes a side, or frees it."""

    side: Annotated[Side, SIDED]
    on: Annotated[bool, typed("true or false")]
    part: Annotated[Part | None, PARTED] = None
    name: Annotated[Name | None, NAMED] = None
    CHECKED = ("idempotency_key", "version", "on", "side", "part", "name")

    @model_validator(mode="after")
    def _named_when_on(self) -> ScreenSide:
        if self.on and self.name is None:
            raise wrong("name", "missing")
        return self


class Rematch(Change):
    """``POST /api/tables/{code}/rematch``: the next game, everyone seated."""

    swap: Annotated[bool, typed("true or false")]
    host_secret: Annotated[Secret, Refuse(
        bad=OWN.bad, missing=lambda name, v, body: Msg(
            "the field 'host_secret' must be the new table's host key made by this screen"))]


class HandOver(Change):
    """``POST /api/tables/{code}/host``: another screen becomes the table's screen."""

    host_hash: Annotated[str, Field(pattern=HASH_RE.pattern), Refuse(
        bad=lambda name, v, body: Msg("the field 'host_hash' must be the SHA-256 of the "
                                      "screen's new key (64 hex digits)"),
        missing_code="bad_field", null="bad")]


# --- the group's pages and the keeper ----------------------------------------------------

class Nothing(Body):
    """A request that sends no field (its bearer says who asks)."""


class Rename(Body):
    """``POST /api/players/me``: a player renames themself from their phone."""

    player: Annotated[Secret, Refuse(
        bad=lambda name, v, body: Msg("the field 'player' must be this phone's player key"),
        missing_code="bad_field", null="bad")]
    name: Annotated[Name, NAMED]
    CHECKED = ("name", "player")


class NewGroup(Body):
    """``POST /api/groups``: start a group (``name``: what its people call it)."""

    name: Annotated[Name, NAMED]


class EnterGroup(Body):
    """``POST /api/group/enter``: a group's link opened (the secret of its fragment)."""

    link: Annotated[str, Field(min_length=20, max_length=100), Refuse(
        bad=lambda name, v, body: Msg("this group link leads nowhere: the group was deleted, "
                                      "or the link is mistyped"),
        status=404, code="not_found", missing_code="not_found", null="bad", field="")]


class Forget(Body):
    """``POST /api/players/{player_id}/delete``."""

    games: Annotated[bool, FLAG] = False


class Count(Body):
    """``POST /api/history/{code}/count``: the keeper's word on whether a game counts."""

    count: Annotated[bool | None, Refuse(
        bad=lambda name, v, body: Msg("the field 'count' must be true, false or null"),
        missing_code="bad_field", null="keep")]


class Claim(Body):
    """``POST /api/keeper/claim``: a keeper link's one-time secret."""

    once: Annotated[str, Field(min_length=20, max_length=100), Refuse(
        bad=lambda name, v, body: Msg("this keeper link was opened before, or was never "
                                      "printed here: a keeper link works once; spies-lies "
                                      "keeper prints a new one"),
        status=403, code="not_keeper", missing_code="not_keeper", null="bad", field="")]
