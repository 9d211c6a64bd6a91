"""Rules at hand: the help texts the table screens show, in the project's own words.

Everything here follows ``shared/spec/RULES.md`` (the project's statement of the
rules, ids R1-R80) and its rulings; the printed rulebook is only a reference and
none of its sentences are reused.  The texts themselves are data, one file per
language (``companion/help/en.json``, ``nl.json``, ``fr.json``, ``de.json``; the same
entries and ids in each), so a translator edits text, not code; this module loads
them and looks things up (``texts(locale)`` gives one language's; the names below are
English):

- ``RANKS``: the ten soldiers, what each does when activated (R40-R49).
- ``RULES``: one entry per rule id of RULES.md, tagged with the phases and ranks
  it concerns and the related rules.
- ``PHASES``: what each game phase is about and what the phones ask for.
- ``GLOSSARY``: the table's vocabulary.
- ``search(query, locale)`` (accents and case folded, every language's words, a typo
  forgiven, a question asked in a sentence) and ``for_phase(phase)``.

>>> [r["id"] for r in for_phase("capture_check")][:2]
['R10', 'R60']
>>> any(e.get("rank") == 6 for e in search("captain"))
True
"""

from __future__ import annotations

import bisect
import json
import math
import os
import re
import unicodedata
from importlib import resources
from typing import Any

from rapidfuzz import fuzz as rf_fuzz
from rapidfuzz import process as rf_process

__all__ = ["RANKS", "RULES", "PHASES", "PHASE_NAMES", "GLOSSARY", "LOCALES", "search",
           "ids", "anchor", "score", "fold", "for_phase", "rule", "rank", "texts"]

#: The languages the help texts are written in (``companion/help/<locale>.json``).
LOCALES: tuple[str, ...] = ("en", "nl", "fr", "de")

#: The game phases of the referee (``State.phase``), in the order a game meets them.
PHASE_NAMES: tuple[str, ...] = ("setup", "intel", "mission", "round_end", "capture_check", "over")


# --- the texts: data a translator edits (companion/help/<locale>.json) ------------------

def _load(locale: str = "en") -> dict[str, Any]:
    """The help texts of ``locale`` from their data file."""
    text = resources.files("companion").joinpath("help", f"{locale}.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


_BY_LOCALE: dict[str, dict[str, Any]] = {}


def texts(locale: str = "en") -> dict[str, Any]:
    """All help texts of ``locale`` (``ranks``, ``rules``, ``phases``, ``glossary``),
    English for a language we do not have; read once.

    >>> texts("de")["ranks"][0]["name"], texts("xx")["ranks"][0]["name"]
    ('Spionin', 'Spy')
    """
    locale = locale if locale in LOCALES else "en"
    if locale not in _BY_LOCALE:
        _BY_LOCALE[locale] = _load(locale)
    return _BY_LOCALE[locale]


_EN = texts()
#: The ten soldiers, what each does when activated (R40-R49).
RANKS: list[dict[str, Any]] = _EN["ranks"]
#: One entry per rule id of RULES.md, with the phases and ranks it concerns.
RULES: list[dict[str, Any]] = _EN["rules"]
#: What each game phase is about and what the phones ask for.
PHASES: dict[str, dict[str, Any]] = _EN["phases"]
#: The table's vocabulary.
GLOSSARY: list[dict[str, Any]] = _EN["glossary"]


# --- look-ups -----------------------------------------------------------------------

_SEARCH_KEYS = ("id", "title", "text", "name", "term", "ability")
_NAME_KEYS = ("title", "name", "term")


def fold(text: Any) -> str:
    """Text as the search compares it: no accents, no case ("Maréchal" → "marechal",
    "Kapitän" → "kapitan", "ß" → "ss").

    >>> fold("  MARÉCHAL Täuschung ")
    '  marechal tauschung '
    """
    decomposed = unicodedata.normalize("NFKD", str(text))
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _words(text: str) -> set[str]:
    return set(re.findall(r"[^\W_]+", text))


def anchor(entry: dict[str, Any]) -> str:
    """Where ``entry`` stands on the /rules page: a rule's id ("R45"), a soldier's
    "rank-6", a glossary word's "word-7" (its place in the glossary)."""
    if "id" in entry:
        return str(entry["id"])
    if "rank" in entry:
        return f"rank-{entry['rank']}"
    for locale in LOCALES:
        words = texts(locale)["glossary"]
        if entry in words:
            return f"word-{words.index(entry)}"
    raise ValueError(f"not a help entry: {entry!r}")


class _Entry:
    """One rule, soldier or word, as the search knows it: its words in all four
    languages, folded (a screen in any language finds it under any of its names)."""

    def __init__(self, key: str, versions: list[dict[str, Any]]) -> None:
        self.key = key
        self.ids = {fold(v[k]) for v in versions for k in ("id", "rule") if k in v}
        self.is_rule = "id" in versions[0]
        self.names = " | ".join(fold(v[k]) for v in versions for k in _NAME_KEYS if k in v)
        self.text = " | ".join(fold(v[k]) for v in versions for k in _SEARCH_KEYS if k in v)
        self.name_words = _words(self.names)
        self.terms = {fold(v["term"]) for v in versions if "term" in v}   # a glossary word's
        self.text_words = _words(self.text)


def _index() -> list[_Entry]:
    """Every entry in page order (rules, soldiers, words), built once."""
    if not _INDEX:
        by = {loc: texts(loc) for loc in LOCALES}
        for kind in ("rules", "ranks", "glossary"):
            for i, e in enumerate(by["en"][kind]):
                key = e["id"] if kind == "rules" else (
                    f"rank-{e['rank']}" if kind == "ranks" else f"word-{i}")
                _INDEX.append(_Entry(key, [by[loc][kind][i] for loc in LOCALES]))
        _VOCAB.extend(sorted({w for e in _INDEX for w in e.text_words}))
        _SOLDIERS.update(w for e in _INDEX if e.key.startswith("rank-") for w in e.name_words)
        for e in _INDEX:          # a word in few entries says more than one in many
            for w in e.text_words:
                _RARITY[w] = _RARITY.get(w, 0.0) + 1.0
        for w, n in _RARITY.items():
            _RARITY[w] = math.sqrt(len(_INDEX) / n)
    return _INDEX


_INDEX: list[_Entry] = []
#: the soldiers' names in the four languages, folded (filled with the index)
_SOLDIERS: set[str] = set()
#: a soldier's "ability", "power", in the four languages, folded
_ABILITY = frozenset(("ability", "abilities", "power", "powers", "pouvoir", "pouvoirs",
                      "fahigkeit", "fahigkeiten", "vaardigheid", "vaardigheden"))
_VOCAB: list[str] = []
#: each word of the texts: the square root of how many entries there are for each that
#: has it (not the plain ratio: one word found in one entry outweighed three of the
#: answer's, "reaches" the Colonel's R48 for "the double agent reaches the wall")
_RARITY: dict[str, float] = {}
#: how close a typed word must be to a word of the texts to count as it (0-100)
_TYPO = 80


#: the shortest text found as typed inside a word ("marker" in "Täuschungsmarker")
_INFIX = 4


def _near(word: str) -> set[str]:
    """The words of the texts a typed word may mean: itself, or one a typo away."""
    if len(word) < 4 or word in _RARITY:   # a word of the texts is no typo ("gagner" is
        return {word}                       # not the German "Gegner", the opponent)
    found = rf_process.extract(word, _VOCAB, scorer=rf_fuzz.ratio, score_cutoff=_TYPO,
                               limit=None)
    # a short word's typo keeps its first letter ("tokn" is "token"; "look" is not the
    # Dutch "ook", also)
    return {w for w, _, _ in found if len(word) > 4 or w[0] == word[0]} | {word}


def _tier(e: _Entry, needle: str, near: list[set[str]] | None) -> int | None:
    """How well entry ``e`` answers ``needle`` (lower is better, ``None``: not at all):
    0 its exact id, 1 a soldier's own rule or a title, name or term in any language,
    2 anything in its text; with ``near`` (for each meaningful word, the words it may
    mean: :func:`_forms`) 3 all of them in its names, 4 all in its text."""
    if needle in e.ids:
        return 0 if e.is_rule else 1
    if len(needle) >= _INFIX:        # a short word only as a word (:func:`_found`)
        if needle in e.names:
            return 1
        if needle in e.text:
            return 2
    if near is None:
        return None
    if all(ws & e.name_words for ws in near):
        return 3
    if all(ws & e.text_words for ws in near):
        return 4
    return None


# --- a question typed as a sentence ("what does the spy do?", "que fait l'espion ?") ------
# When the words as typed find nothing, the words that only shape a question (in the four
# languages, folded) are set aside, and each word left may also be a longer or shorter
# form of a word of the texts ("win" finds "winning", "captures" finds "capture").
_QUESTION_WORDS = frozenset("""
a an the what whats which who whom whose when where why how do does did is are was were be
been can could may might must shall should will would i me my we our you your he she it its
they them their this that these those of to in on at by for from with about as if or and
not than then there here happen happens happening mean means rule rules work works get
many much have has had both go goes going his her hers mine yours against give gives
le la les l un une des du de d au aux que qu quoi qui quand ou comment pourquoi est sont ce
cet cette ces c je j me m mon ma mes tu te ton ta tes il elle on nous vous ils elles se s
leur leurs et en dans sur pour par avec sans ne n pas plus fait faire fais font peut peux
puis doit dois y t si passe regle regles quel quelle quels quelles combien beaucoup avoir ai
veut veux dire signifie contre sert servent servir vont va vais aller comme
avons avez ont son sa ses notre nos votre vos
der die das den dem des ein eine einer eines einem einen was wer wie wann wo warum welche
welcher welches ist sind bin bist kann kannst konnen darf muss macht machen tut tun ich
mich mir mein meine du dich dir dein er sie es wir ihr man und oder aber nicht kein keine
mit von zu zum zur im am auf fur bei aus nach uber passiert gilt bedeutet regel regeln wenn
dann viele viel wieviel wieviele haben habe hat beide beiden heisst heißt meinen meinem
bekomme bekommt bekommen kriege kriegt kriegen gegen bringt bringen
meiner meines deinen deinem deiner deines sein seine seinen seinem seiner unser unsere
wat het een wie hoe wanneer waar waarom welke welk zijn kan kun kunnen mag moet doet doen ik
mij mijn je jij jouw u hij zij ze we wij of maar niet geen met van voor naar op aan bij uit doe
over gebeurt betekent als er dat dit deze hoeveel veel hebben heb heeft beide ons onze jullie dient
dienen
krijg krijgt krijgen tegen geeft geven
geht gehen funktioniert klappt werkt werken marche marchent fonctionne
""".split())


def _meaningful(needle: str) -> list[str]:
    """The words of ``needle`` that carry its meaning (all of them if every one only
    shapes a question), each once, the first :data:`_WORDS_MAX` of them.

    >>> _meaningful("que fait l'espion ?"), _meaningful("who"), _meaningful("what is r45")
    (['espion'], ['who'], ['r45'])
    """
    words = list(dict.fromkeys(re.findall(r"[^\W_]+", needle)))
    # the first few: a question names few things, and each word is looked for among
    # every word of the texts (a stranger's page of words costs no more than a question)
    return ([w for w in words if w not in _QUESTION_WORDS] or words)[:_WORDS_MAX]


#: the most words of a question looked for
_WORDS_MAX = 8


#: the shortest word a longer form is looked for (a shorter one must match as it is)
_STEM = 3


def _same(*groups: tuple[tuple[str, ...], tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """Each question word → the texts' words it means; a word of two languages
    ("verloren") means both languages' words."""
    out: dict[str, tuple[str, ...]] = {}
    for asked, means in groups:
        for w in asked:
            out[w] = out.get(w, ()) + means
    return out


#: a question's word for what the texts say otherwise ("wrong" for the rules' "incorrect",
#: "lose" for "win", "tie" for "draw"), in the four languages, folded: looked for as well
_SAME = _same(
    (("wrong", "mistaken", "out"), ("incorrect",)),                      # "out of order"
    (("broken", "break"), ("breaks", "incorrect")),           # R60: a card "breaks its order"
    (("lose", "loses", "lost", "losing", "loser"), ("win", "wins", "winning")),
    (("tie", "tied"), ("draw", "equal")),
    (("same", "even"), ("equal",)),                        # not "draw": a card is drawn
    (("faux", "fausse", "mauvais", "mauvaise", "erreur", "errone", "erronee"), ("incorrect",)),
    (("autant", "meme", "memes", "egal", "egaux", "egalite"), ("egalite", "nul")),
    (("perdre", "perd", "perds", "perdu", "perdant"), ("gagner", "gagne")),
    (("verlieren", "verliert", "verliere", "verloren"), ("gewinnt", "sieg")),
    (("gewinne", "gewinnen", "gewinnst"), ("gewinnt",)),      # not "our games"' "gewonnen"
    (("gleich", "gleiche", "gleichstand", "genauso", "remis"), ("gleichen", "unentschieden")),
    (("verkeerd", "verkeerde"), ("foute",)),
    (("evenveel", "zelfde", "hetzelfde", "gelijk", "gelijkstand"), ("gelijke", "gelijkspel")),
    (("verliezen", "verlies", "verliest", "verloren"), ("winnen", "wint")),
    (("place", "places", "placed", "put", "puts"), ("put", "lay")),   # tokens put, cards lay
    (("rounds",), ("day", "days")),                           # "how many rounds": three days
    (("manches",), ("jour", "jours")),
    (("runden",), ("tag", "tage")),
    (("rondes", "rondjes"), ("dag", "dagen")),
    (("placer", "place", "places", "placez"), ("poser",)),
    # cards laid (R10's "pose", "legt") and a token laid on one (R14's "poser", "darauflegen");
    # German "lege" is not the Dutch "lege" (empty: a flat battery's)
    (("poser", "pose", "posez", "posent"), ("pose", "poser")),
    (("lege", "legen", "hinlegen", "auflegen"), ("legt", "legen", "darauflegen")),
    (("first",), ("starts", "starter")),                      # "who goes first": who starts
    (("premier", "premiere"), ("commence",)),
    # the next day's starter is R12's "not the one who started the day before" ("la veille")
    (("suivant", "suivante", "prochain", "prochaine", "lendemain"), ("suivant", "veille")),
    (("fangt", "anfangen", "zuerst"), ("beginnt", "beginnende")),
    (("anfang", "anfangs", "beginn"), ("beginnt", "ausgangslage")),      # R2: the start
    (("eerst", "eerste"), ("begint", "beginnende")),
    (("agent",), ("agent", "da", "ad")),                      # the rules write "DA"
    (("doppelagent", "doppelagenten"), ("doppelagent", "da")),
    (("dubbelagent",), ("dubbelagent", "da")),
    (("middle", "center"), ("centre",)),                      # R72's centre space
    # the DA "reaches" a wall: its step lands there, its move stops there (R32, R1; not the
    # Colonel's "+3 reaches 10")
    (("reach", "reaches", "reached", "reaching", "arrives", "arrive"), ("lands", "stops")),
    (("milieu",), ("centrale",)),
    (("mitte",), ("mittelfeld",)),
    (("midden",), ("middelste",)),
    # a token is played (R14), an exhausted soldier used (R45)
    (("use", "uses", "using"), ("playing", "use")),
    (("utiliser", "utilise", "utilises", "utilisez"), ("jouer", "utiliser")),
    (("benutzen", "benutze", "einsetzen", "setze", "verwenden", "nutzen"), ("spielen", "nutzen")),
    (("gebruiken", "gebruik", "inzetten"), ("spelen", "gebruiken")),
    # a right guess identifies the card (R22, R30: "how many IP for a right guess")
    (("right", "correct", "correctly"), ("right", "identified", "identification")),
    (("bonne", "bon", "juste", "correcte"), ("bonne", "identifiee", "identification")),
    (("richtig", "richtige", "richtigen", "korrekt"), ("richtiger", "enttarnte", "enttarnung")),
    (("juist", "juiste", "goed", "goede"), ("goede", "ontmaskerde", "ontmaskering")),
    (("tipp", "tippe", "rate"), ("tipp", "ratende")),        # the guesser: "der Ratende"
    (("gok", "gokken", "gokt", "raad"), ("gok", "rader")),   # "de rader"
    # the game's end: its flag taken (R70 "stops"; not R72's "winning": "the end of the
    # day" is R15's, which day 3's "winning" outweighed, in every language)
    (("end", "ends", "ending", "finish", "finished", "over"), ("end", "stops")),
    (("termine", "terminee", "terminer", "finit", "finir", "fin", "fini", "finie"),
     ("fin", "arrete")),
    (("endet", "enden", "ende", "vorbei"), ("ende", "endet")),
    (("eindigt", "einde", "eindigen", "afgelopen", "voorbij"), ("einde", "stopt")),
    # a day by its number, as the texts write it ("who starts the second day": R12)
    (("second", "deuxieme", "zweiten", "zweite", "tweede"), ("2",)),
    (("third", "troisieme", "dritten", "dritte", "derde"), ("3",)),
    # how many tokens a side may keep: R51's "at most", "never more"
    (("hold", "keep", "keeping", "carry"), ("holds",)),
    (("garder", "garde", "gardes", "conserver", "detenir", "maximum", "max"), ("jamais",)),
    (("behalten", "behalte", "besitzen", "maximal", "max"), ("hochstens", "nie")),
    (("houden", "hou", "bewaren", "maximaal", "max"), ("hooguit", "nooit")),
    # the Sergeant's lie is its bluff (R11), not its order (R20)
    (("lie", "lies", "lying", "liar"), ("bluff",)),
    (("ment", "mentir", "mens", "menteur"), ("bluffer",)),
    (("lugt", "lugen", "luge", "lugner"), ("bluffen",)),
    (("liegt", "liegen", "lieg", "leugenaar"), ("bluffen",)),
    (("spielbrett", "spielbretts", "brett"), ("bretter", "brett")),   # R1: boards are counted
    # setting the game up (R2's start)
    (("setup",), ("set",)),
    (("mettre",), ("mise", "poser")),                    # a game "mise en place", a token "posé"
    (("installer", "preparer"), ("mise",)),
    (("baue", "bauen", "aufbauen"), ("aufbau",)),
    (("klaar", "klaarzetten", "opzetten"), ("klaargezet",)),
    # the soldiers' other German names (Stratego's): Hauptmann, Unteroffizier, Späher
    (("hauptmann", "hauptmanns"), ("kapitan",)),
    (("unteroffizier", "unteroffiziers"), ("feldwebel",)),
    (("spaher", "kundschafter"), ("aufklarer",)),
    # the Miner's other names ("hoe werkt de mijnwerker?" found nothing)
    (("mijnwerker", "mijnwerkers", "mijnenveger", "sapper", "minenraumer", "sappeur"),
     ("mineur", "miner")),
    # deception pays (R50), the double agent moves (R32)
    (("pay", "paid"), ("pays",)),
    (("rapporte", "rapportent", "rapporter", "paye", "payer"), ("paie",)),
    (("levert", "oplevert", "opleveren", "lonen"), ("loont",)),
    (("debut",), ("depart",)),                                # R2: "Position de départ"
    (("bouge", "bouger", "bougent", "avance", "avancer"), ("deplacer", "deplace", "avance")),
    (("again",), ("rematch",)),                               # the companion's own words
    (("trete", "tritt", "treten", "mitspielen", "mitmachen"), ("beitreten",)),
    (("ongedaan",), ("herstel",)),
    (("mee", "meespelen"), ("meedoen",)),
    # a wrong tap is undone (not R60's incorrect order: "I tapped the wrong card")
    (("mistake", "mistakes", "typo", "misclick", "misclicked", "mistapped", "tapped", "oops"),
     ("undo",)),
    (("vertippt", "vertan", "versehen", "verklickt", "fehler", "irrtum", "getippt"),
     ("ruckgangig",)),
    (("trompe", "tromper", "trompee", "trompes", "oups"), ("annuler",)),
    (("vergist", "vergissing", "vergis", "misgetikt", "getikt"), ("herstel",)),
    # ... entered wrong, to be put right ("I entered the wrong rank": not R60's order)
    (("entered", "entry", "pressed", "fix"), ("undo",)),    # (not "change": a screen, a name)
    (("eingegeben", "korrigieren", "korrektur", "gedruckt"), ("ruckgangig",)),
    (("corriger", "correction", "saisi", "tape", "appuye"), ("annuler",)),
    (("corrigeren", "ingevoerd", "ingetikt", "verbeteren"), ("herstel",)),
    # joining by the QR code, playing again (the rematch), deleting a game (the keeper)
    (("qr",), ("scan", "scannen", "scannez")),
    (("nochmal", "nochmals", "erneut", "wieder"), ("revanche",)),
    (("rejouer", "rejoue", "rejouons"), ("revanche",)),
    (("opnieuw",), ("revanche",)),
    (("verwijderen", "verwijder", "weghalen"), ("wissen",)),
    # the group's pages, a watcher, the sound, a saved game opened again: the words a
    # player asks with (each found nothing, or "infiltrating" for "rating")
    (("leaderboard", "ranking", "rankings", "ladder", "standings", "scoreboard"),
     ("rating", "statistics")),
    (("rangliste", "bestenliste", "tabelle"), ("wertung", "statistik")),
    (("palmares",), ("classement",)),
    (("ranglijst", "klassement"), ("rating", "statistieken")),
    (("spectator", "spectators", "viewer", "viewers", "audience"), ("watch", "watcher")),
    (("spectateur", "spectateurs", "spectatrice"), ("regarder", "regarde")),
    (("toeschouwer", "toeschouwers", "kijker", "kijkers"), ("kijken", "kijkt")),
    (("mute", "unmute", "silent", "beep", "beeps"), ("sound",)),
    (("stumm", "lautlos", "ausschalten"), ("piepton",)),          # ("ton": French, "your")
    (("muet", "silencieux"), ("son",)),
    (("stil", "dempen"), ("geluid",)),
    (("load", "reload", "import", "upload"), ("file", "opens")),
    (("laden", "hochladen", "importieren", "inladen", "importeren"),
     ("datei", "offnet", "bestand", "opent")),
    (("charger", "recharger", "importer"), ("fichier", "ouvre")),
    (("asleep", "slept"), ("sleep",)),                      # a phone that went to sleep
    (("eteint", "eteinte", "decharge", "dechargee"), ("mort", "batterie")),   # a dead phone
    # points are the rules' IP ("was passiert bei 10 Punkten?": R31, not R60's "punkten")
    (("points", "point"), ("ip",)),
    (("punkte", "punkten", "punkt"), ("ip",)),
    (("punten", "punt"), ("ip",)),
    # a phone or screen cut off from the companion ("offline" in every language)
    (("offline", "disconnected", "disconnect", "disconnects"), ("connection", "verbindung",
                                                                "connexion", "verbinding")),
    (("deconnecte", "deconnectee", "deconnexion", "ligne"), ("connexion",)),
    (("getrennt", "abgebrochen", "unterbrochen"), ("verbindung",)),
    (("verbroken", "weggevallen"), ("verbinding",)),
    # the game told again, reveal by reveal (the story): how a player asks for it
    (("recap", "review", "rewatch"), ("story",)),       # ("replay": played again, a rematch)
    (("verlauf", "spielverlauf", "ruckblick", "nachspielen"), ("geschichte",)),
    (("historique", "revoir", "resume", "recapitulatif"), ("recit",)),
    (("verloop", "terugkijken", "terugblik", "samenvatting"), ("verhaal",)),
    # a game of another evening: the group's finished games, with their dates
    (("week", "weeks", "yesterday", "month", "weekend", "tonight"), ("dates",)),
    (("semaine", "mois", "soir"), ("date",)),         # (not "hier": "here" in de and nl)
    (("woche", "wochen", "gestern", "monat", "wochenende"), ("datum",)),
    (("week", "weken", "gisteren", "maand", "weekend", "vanavond"), ("datum",)),
    # a game lasts three days; what happened is told by the story
    (("long", "duration", "lasts"), ("days",)),
    (("duree", "dure", "durent"), ("jours",)),
    (("dauer", "dauert", "lange"), ("tage",)),
    (("duur", "duurt"), ("dagen",)),
    (("happened",), ("story",)),
    (("gebeurd",), ("verhaal",)),
    # the game saved to a file ("save record"), one more game (the rematch)
    (("opslaan", "sla", "opgeslagen", "downloaden"), ("verslag", "bestand")),
    (("potje", "potjes"), ("revanche",)))


def _forms(word: str) -> tuple[dict[str, float], set[str]]:
    """The words of the texts a word of a question may mean: as meant, each with its
    weight (itself, as rare as it is; for a word of :data:`_SAME` its meanings, 0.8 of
    theirs, and itself a third; the same long word bent, or an English word with a regular
    ending, 0.9), and all of them: those, a
    word a typo away, a longer form of it ("win" → "winning",
    "wins"), or one it shares its stem with: a common beginning of five letters or more,
    most of the shorter word ("reaches" → "reach", "gewinnt" → "gewinnen",
    "Täuschungsmarker" → "Täuschungsplättchen")."""
    _index()
    same = _SAME.get(word, ())
    # a word the question means otherwise than the texts' same word ("same" IP: R72's "equal",
    # not "does the same"; French "autant" d'IP, not "autant de cases") counts as its
    # meanings, itself no more than another form of it
    meant = {word: _RARITY.get(word, 0.0) * (0.3 if same else 1.0)}
    for w in same:
        meant[w] = 0.8 * _RARITY.get(w, 0.0)
    found = _near(word) | set(meant)
    if len(word) >= _STEM:        # the texts' words are sorted: those beginning alike
        found.update(_beginning(word))
        if len(word) >= 5:
            for w in _beginning(word[:5]):
                n = len(os.path.commonprefix((w, word)))
                if n >= 0.6 * min(len(w), len(word)):
                    found.add(w)
    # a word that only shapes a sentence is no form of a word asked ("comme" of "commence":
    # the Bomb's "comme d'habitude … jour suivant" came before R12 for "qui commence le jour
    # suivant ?")
    found = {w for w in found if w in meant or w not in _QUESTION_WORDS}
    for w in found - meant.keys():      # the same long word bent: "Doppelagenten", "missions"
        short, long = sorted((w, word), key=len)
        if not long.startswith(short):
            continue
        if len(short) >= 7 and len(long) - len(short) <= 2:
            # no rarer than as typed, when the texts have it as typed: the one "Sergents"
            # of R20 outweighed the Sergeant's own R43 for "le sergent …"
            meant[w] = 0.9 * min(_RARITY.get(w, 0.0), _RARITY.get(word, _RARITY.get(w, 0.0)))
        elif word in _RARITY and not same and len(short) >= 4 and long[len(short):] in _ENDINGS:
            # an English word bent that the texts also have: "guessed" (the Spy's) is the
            # Bomb's "guess" too, but no rarer than as typed ("sergents" than "sergent")
            meant[w] = 0.9 * min(_RARITY[w], _RARITY[word])
    return meant, found


#: an English word's regular endings: "guessed" is "guess" bent, as "tokens" is "token"
#: (not "guesser", who guesses; a short word's "wins" is not bent: "win" is also "Gewinn")
_ENDINGS = frozenset(("s", "es", "ed", "d", "ing"))


def _beginning(start: str) -> list[str]:
    """The words of the texts that begin with ``start``."""
    i = bisect.bisect_left(_VOCAB, start)
    out = []
    while i < len(_VOCAB) and _VOCAB[i].startswith(start):
        out.append(_VOCAB[i])
        i += 1
    return out


def _asked(e: _Entry, wanted: list[tuple[dict[str, float], set[str]]]) -> float | None:
    """How much of a question entry ``e`` answers: the weight of the question's words it
    has (each as meant, and all its forms: :func:`_forms`), negative (lower is better);
    ``None``: none of them. A rare word weighs more than a common one, a word in its
    names twice, another form of a word a third (German's "gewinnt", wins, is not "Gewinn",
    a gain) unless it is a long word bent (0.9), a meaning of a word of :data:`_SAME` 0.8."""
    weight = 0.0
    for meant, forms in wanted:
        if has := forms & e.text_words:
            weight += max(meant[w] if w in meant else _RARITY[w] * 0.3 for w in has) * (
                2 if forms & e.name_words else 1)
    return -weight if weight else None


def _needle(query: Any) -> str:
    needle = " ".join(fold(query or "").split())[:_QUERY_MAX]
    return needle if re.search(r"[^\W_]", needle) else ""


_QUERY_MAX = 200


#: whole questions said with words that each only shape a question, in the four languages,
#: folded: what they ask for (the game told again; the score, on the IP markers). Only a
#: question that is all of one of these ("what is the score of a Spy?" asks for the Spy)
_IDIOMS = tuple((re.compile(phrase), means) for phrase, means in (
    (r"(?:qu est ce qu il|qu est ce qui|que) s est (?:il )?passe|il s est passe quoi", "recit"),
    (r"was (?:ist|war) (?:denn )?(?:passiert|los)|was passiert ist", "geschichte"),
    (r"(?:what s|whats|what is) the score(?: now)?|who (?:s|is) (?:winning|ahead)", "ip"),
    (r"(?:quel est|c est quoi) le score|qui (?:mene|est devant)|on en est ou", "ip"),
    (r"wie (?:ist|steht) (?:der spielstand|es)|wie steht s|wer (?:fuhrt|liegt vorn|liegt vorne)",
     "ip"),
    (r"hoe staat het(?: ervoor)?|wat is de stand|wie staat (?:er )?voor", "ip")))


#: points (IP) won, earned, scored, got, in the four languages, folded: R30's scoring, not
#: R72's winning the game ("comment on gagne des points ?", "how do you win points?", "wie
#: gewinnt man Punkte?", "hoe verdien je punten?"), when the question asks nothing else
#: ("does the bomb get points?" asks for the Bomb). Between the verb and the points only a
#: pronoun, an article or a "more" ("qui gagne aux points ?" is R72's); the points before
#: the verb only for verbs that never mean winning the game ("Punkte bekommen", "punten
#: scoren": "the side with more points wins" is R72's)
_GET = r"""(?:earn|earns|gain|gains|get|gets|score|scores|collect|obten(?:ir|ez)|obtient
  |obtiens|obtenus|marque(?:s|r|nt|z)?|bekomm(?:e|en|t|st)|krieg(?:e|en|t|st)|sammel(?:n|t|st)
  |sammle|verdien(?:en|t)?|krijg(?:en|t)?|scoor(?:t)?|scoren|haal|haalt|halen)"""
_WIN = r"(?:win|wins|make|gagn(?:e|es|er|ent|ez|ons)|gewinn(?:e|en|t|st)|wint|winnen)"
_BETWEEN = r"""(?:i|we|you|they|one|some|any|more|many|the|je|tu|nous|vous|ils|des|de|d|du|les
  |plus|ich|wir|ihr|sie|man|mehr|viele|die|ik|jij|jullie|ze|meer|veel)"""
_POINTS = r"(?:points?|ip|pi|punkte|punkten|punten)"
_SCORING = re.compile(rf"\b(?:{_GET}|{_WIN})(?:\s+{_BETWEEN}){{0,2}}\s+{_POINTS}\b"
                      rf"|\b{_POINTS}\s+{_GET}\b", re.VERBOSE)


#: taking back what was entered, in the four languages, folded: the companion's undo ("how do I
#: take back a tap?" found "back to your game", "comment revenir en arrière ?" the screen
#: without phones); not "go back" (R60's DA walks back), "back to" (the way to a game) nor
#: a seat taken back (a new phone)
_TAKE_BACK = re.compile(r"\b(?:take|takes|taking|took)\s+(?:(?:it|that|this|my|a|the|one|last)\s+)"
                        r"{0,2}back\b(?!\s+to\b)(?!(?:\s+\w+)?\s+seats?\b)"
                        r"|\brevenir en arriere\b|\bzuruck ?nehmen\b|\bterug ?(?:nemen|draaien)\b")


#: playing first is starting (R12): "who plays first?" found R80's team play, "qui joue en
#: premier ?" and "wer spielt zuerst?" the group's games, "wie speelt eerst?" the first game
_PLAYS_FIRST = re.compile(r"\b(?:play|plays|joue|jouent|spielt|spielen|speelt|spelen)\s+"
                          r"(?:en\s+|als\s+)?(?:first|premiers?|premieres?|zuerst|erstes|eerst|eerste)\b")


#: winning "the game": the game is every game, not the group's games ("comment gagner la
#: partie ?", "wie gewinne ich das Spiel?" found "our games" first)
_WIN_THE_GAME = re.compile(rf"\b({_WIN})((?:\s+(?:i|we|you|je|on|nous|ich|man|wir|ik))?)"
                           r"\s+(?:the|a|la|une|das|ein|het|een)\s+(?:game|partie|spiel|spel)\b")


#: phrases said in the texts' own words (a question keeps the rest of its words)
_PHRASES = ((_TAKE_BACK, "undo"), (_PLAYS_FIRST, "starts"), (_WIN_THE_GAME, r"\1\2"))


def _idiom(needle: str) -> str:
    """``needle``, its :data:`_PHRASES` said in the texts' words ("take back a tap" is
    "undo a tap"), or what it asks for if it is a whole question of :data:`_IDIOMS`
    ("qu'est-ce qui s'est passé ?" is "récit", "what's the score?" "IP", "how do I earn
    points?" R30's "scoring" IP: :data:`_SCORING`)."""
    words = " ".join(re.findall(r"[^\W_]+", needle))
    for phrase, said in _PHRASES:
        words, n = phrase.subn(said, words)
        if n:
            needle = words
    means = next((means for phrase, means in _IDIOMS if phrase.fullmatch(words)), None)
    if means is None and (m := _SCORING.search(words)):
        rest = re.findall(r"[^\W_]+", words[:m.start()] + " " + words[m.end():])
        if all(w in _QUESTION_WORDS for w in rest):     # nothing else asked: "the bomb"
            means = "scoring ip"
    return means or needle


def _found(query: Any) -> tuple[str, list[tuple[int, int, _Entry]]]:
    needle = _idiom(_needle(query))
    if not needle:
        return needle, []
    index = _index()
    # a short word is looked for as a word, never inside others ("tie" is not in "partie",
    # "da" not in "dag"), with its longer forms ("win": "winning"): the word search's
    typed = [(t, i, e) for i, e in enumerate(index)
             if len(needle) >= _INFIX and (t := _tier(e, needle, None)) is not None]
    words = _meaningful(needle)
    if len(words) > 1 and _ABILITY.intersection(words) and _SOLDIERS.intersection(words):
        # a soldier's ability is its rule ("the marshal's ability": R49, not R23's text that
        # names both); an ability asked of no soldier stays a word asked
        words = [w for w in words if w not in _ABILITY]
    if typed and (len(words) < 2 or min(t for t, _, _ in typed) < 2):
        # (of those found in their text, the entries that have it as a word of their own
        # first: "rating" the statistics' rating before the "infiltrating" of IP and a day)
        whole = set(needle.split())
        return needle, sorted(typed, key=lambda h: (
            h[0], h[0] == 2 and not whole <= h[2].text_words, h[1]))
    # nothing as typed (never noise beside hits): a question's shaping words aside, each
    # word a typo away or in another form, the entries naming more of them, and rarer
    # ones, first; then what else the question names ("the colonel"). Words found as typed
    # only inside some text ("erschöpfte Soldaten", the Bomb's) are joined by what has every
    # word in another form (R3's "Erschöpfung", "Soldaten"), and nothing with fewer
    named = [(0 if e.is_rule else 1, i, e) for i, e in enumerate(index)
             if e.ids.intersection(words)]               # "what is R45": its rule first
    wanted = [_forms(w) for w in words]
    near = [forms for _, forms in wanted]
    weight = [_asked(e, wanted) for e in index]
    # (as much: rules, soldiers, words in the page's order, and of two of a kind the one
    # naming a word as typed first: "beginnt" R12's "Wer beginnt" before R2's "Beginstand")
    kind = {"rank-": 1, "word-": 2}
    # (a question that is a word of the glossary and nothing else, "what is IP?", asks
    # what that word means: its entry first, before the rules with it in their titles)
    asked = " ".join(words)
    order = sorted(range(len(index)), key=lambda i: (
        asked not in index[i].terms, weight[i] or 0.0, kind.get(index[i].key[:5], 0),
        -len(index[i].name_words.intersection(words)), i))
    hits = named + [(t, i, index[i]) for i in order if index[i].ids.isdisjoint(words)
                    and (t := _tier(index[i], needle, near)) is not None]
    if typed:       # (a name with every word, R70's "capture the flag", before a text
        return needle, sorted((h for h in hits if h[0] <= 4),      # with "flag capture")
                              key=lambda h: 1.5 if h[0] == 3 else h[0])
    if hits and len(near) > 1:
        found = {e.key for _, _, e in hits}
        hits += [(5, i, e) for i, e in enumerate(index) if e.key not in found
                 and any(ws & e.name_words for ws in near)]
    if not hits:          # none has every word: those with the most of them (tier 5), at
        best = min((w for w in weight if w is not None), default=0.0)   # least half the best
        hits = [(5, i, index[i]) for i in order if (w := weight[i]) is not None and w <= best / 2]
    return needle, sorted(hits, key=lambda h: h[0])        # stable: the order made above


def score(entry: dict[str, Any], query: str) -> int | None:
    """How well ``entry`` (in any language) answers ``query``: 0 its exact id ("r45"),
    1 its title, name or term, or a soldier's own rule, 2 anything in its text, 3-4 the
    same a typo away or in another form, 5 some of a question's words (:func:`_asked`);
    ``None``: not at all."""
    key = anchor(entry)
    return next((t for t, _, e in _found(query)[1] if e.key == key), None)


def ids(query: Any) -> list[str]:
    """The /rules page's anchors of what :func:`search` finds, best first (the same
    in every language: each entry is searched in all four)."""
    return [e.key for _, _, e in _found(query)[1]]


def search(query: Any, locale: str = "en") -> list[dict[str, Any]]:
    """Rules, ranks and glossary entries that answer ``query``, in ``locale``'s words:
    an exact id first ("R45" opens the Captain's rule), then titles, names and terms
    ("bomb" finds the Bomb and its rule before every soldier whose text mentions a
    Bomb), then text. Accents and case do not count ("marechal" finds the Maréchal),
    every entry is known under its words in all four languages ("Marshal" on a German
    screen finds the Feldmarschall), and when the words as typed find nothing, a word
    one typo away does ("captian"), and a question asked in a sentence finds what its
    meaningful words name ("que fait l'espion ?" finds the Spy; "how do I win" the
    rules of winning, "win" in "winning"; "is my order wrong" the incorrect order). A
    blank query finds nothing.

    The entries are shallow copies, so a caller cannot change the help data.
    """
    shown = texts(locale)
    by_key = {**{e["id"]: e for e in shown["rules"]},
              **{f"rank-{e['rank']}": e for e in shown["ranks"]},
              **{f"word-{i}": e for i, e in enumerate(shown["glossary"])}}
    return [dict(by_key[e.key]) for _, _, e in _found(query)[1]]


def for_phase(phase: str) -> list[dict[str, Any]]:
    """The RULES entries that matter in ``phase`` (one of ``PHASE_NAMES``), in id order.
    An unknown phase gives an empty list."""
    return [dict(e) for e in RULES if phase in e["phases"]]


def rule(rule_id: str) -> dict[str, Any] | None:
    """The RULES entry with id ``rule_id`` (e.g. ``"R45"``), or None."""
    for e in RULES:
        if e["id"] == rule_id:
            return dict(e)
    return None


def rank(number: int) -> dict[str, Any] | None:
    """The RANKS entry of rank ``number`` (1-10), or None."""
    for e in RANKS:
        if e["rank"] == number:
            return dict(e)
    return None
