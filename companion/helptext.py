"""Rules at hand: the help texts the table screens show, in the project's own words.

Everything here follows ``shared/spec/RULES.md`` (the project's statement of the
rules, ids R1-R80) and its rulings; the printed rulebook is only a reference and
none of its sentences are reused.  The module is plain data plus two look-ups:

- ``RANKS``: the ten soldiers, what each does when activated (R40-R49).
- ``RULES``: one entry per rule id of RULES.md, tagged with the phases and ranks
  it concerns and the related rules.
- ``PHASES``: what each game phase is about and what the phones ask for.
- ``GLOSSARY``: the table's vocabulary.
- ``search(query)`` and ``for_phase(phase)``.

>>> [r["id"] for r in for_phase("capture_check")][:2]
['R10', 'R60']
>>> any(e.get("rank") == 6 for e in search("captain"))
True
"""

from __future__ import annotations

__all__ = ["RANKS", "RULES", "PHASES", "PHASE_NAMES", "GLOSSARY", "search", "for_phase",
           "rule", "rank"]

#: The game phases of the referee (``State.phase``), in the order a game meets them.
PHASE_NAMES: tuple[str, ...] = ("setup", "intel", "mission", "round_end", "capture_check", "over")


# --- the ten soldiers --------------------------------------------------------------

RANKS: list[dict] = [
    {
        "rank": 1,
        "name": "Spy",
        "ability": "+1 IP and a deception token; the enemy Marshal is neutralised this round",
        "text": (
            "Your side gains 1 IP and takes a deception token from the spare supply, "
            "provided you hold fewer than 2 and the supply still has one. "
            "Until the round ends, whenever you turn up the enemy Marshal on one of your "
            "reveals it retreats even though you guessed wrong, so it gives its owner nothing. "
            "Your Spy itself retreats without effect if it is named correctly, if its intel "
            "token is wrong, if it breaks your order, or if an enemy Bomb effect is waiting."
        ),
        "rule": "R40",
    },
    {
        "rank": 2,
        "name": "Scout",
        "ability": "+2 IP; your identifications score 4 instead of 2 for the rest of the round",
        "text": (
            "Your side gains 2 IP straight away. "
            "From then until the round ends, every enemy card you identify is worth 4 IP to "
            "you instead of 2, including cards given away by a wrong intel token (R61) or a "
            "broken order (R60). "
            "Like every card it retreats without effect when named correctly, betrayed by its "
            "intel token, out of order, or met by an enemy Bomb effect."
        ),
        "rule": "R41",
    },
    {
        "rank": 3,
        "name": "Miner",
        "ability": "+3 IP; the enemy Bomb is neutralised for the rest of the round",
        "text": (
            "Your side gains 3 IP. "
            "For the rest of the round, if one of your reveals turns up the enemy Bomb it "
            "retreats even on a wrong guess, so its effect never starts; it also makes an enemy "
            "Captain's use of an exhausted Bomb fizzle (R45). "
            "The Miner retreats without effect if named correctly, betrayed by a wrong intel "
            "token, out of order, or met by an enemy Bomb effect."
        ),
        "rule": "R42",
    },
    {
        "rank": 4,
        "name": "Sergeant",
        "ability": "+4 IP; free of the order and intel rules",
        "text": (
            "Your side gains 4 IP. "
            "The Sergeant may stand on any mission without breaking the rising order, and you "
            "may give it an intel token or not as you like, so it can never be caught out by "
            "order or intel. "
            "It retreats only when the opponent names it correctly, when an enemy Bomb effect "
            "is waiting, or when your side already broke its order earlier this round (R60)."
        ),
        "rule": "R43",
    },
    {
        "rank": 5,
        "name": "Lieutenant",
        "ability": "Double agent 1 step toward the enemy fort; no IP",
        "text": (
            "No IP: instead the double agent moves one step toward the opponent's fort. "
            "If the double agent was already standing on the enemy wall, that step captures "
            "the flag and wins, subject to the capture check (R70, R71). "
            "The Lieutenant retreats without effect if named correctly, betrayed by a wrong "
            "intel token, out of order, or met by an enemy Bomb effect."
        ),
        "rule": "R44",
    },
    {
        "rank": 6,
        "name": "Captain",
        "ability": "+6 IP, or use one of your own exhausted soldiers",
        "text": (
            "You choose: take 6 IP, or borrow one of your own exhausted soldiers (your pick if "
            "two are exhausted) and get exactly its IP and ability as if it had just been "
            "activated; the borrowed card stays exhausted where it lies. "
            "If you borrow your Marshal while the opponent's Spy is active this round, or your "
            "Bomb while their Miner is, the borrowed ability fizzles and you gain nothing at all. "
            "Even then the Captain counts as activated, so a deception token on it still pays "
            "its 4 IP (R50). "
            "It retreats without effect if named correctly, betrayed by its intel token, out of "
            "order, or met by an enemy Bomb effect."
        ),
        "rule": "R45",
    },
    {
        "rank": 7,
        "name": "Bomb",
        "ability": "No IP; your next reveal this round retreats, with double damage if it is identified",
        "text": (
            "No IP. The enemy card on your very next reveal this round retreats whatever you "
            "guess, and that reveal uses the effect up whatever decides its outcome; if it counts as "
            "identified (right guess, wrong intel token or broken order) you score as usual and "
            "the opponent also suffers double damage: two soldiers exhausted for the next day "
            "instead of one, which does nothing after day 3. "
            "A Bomb turned up when you have no reveal left this round has no effect. "
            "An enemy Miner activated earlier this round makes your Bomb retreat even on a "
            "wrong guess, and it also retreats when named correctly, betrayed by its intel "
            "token, out of order, or met by an enemy Bomb effect."
        ),
        "rule": "R46",
    },
    {
        "rank": 8,
        "name": "Colonel",
        "ability": "+8 IP, the only gain whose part beyond 10 carries over",
        "text": (
            "Your side gains 8 IP, and unlike any other gain the part beyond 10 is kept: you "
            "infiltrate at 10 (marker back to 0, double agent moves by the day number) and then "
            "add the rest. "
            "Example: at 7 IP you go up 3 to reach 10, the double agent moves, and you finish on 5. "
            "If that double agent move captures the flag the game ends at once and the rest is "
            "never added. "
            "The Colonel retreats without effect if named correctly, betrayed by its intel token, "
            "out of order, or met by an enemy Bomb effect."
        ),
        "rule": "R48",
    },
    {
        "rank": 9,
        "name": "General",
        "ability": "Double agent 2 steps toward the enemy fort; no IP",
        "text": (
            "No IP: the double agent walks two steps toward the opponent's fort, one at a time. "
            "If the first step lands on the enemy wall the move stops there and the second step "
            "is lost; if the double agent already stood on the enemy wall, the move captures the "
            "flag (R32, R70). "
            "The General has no rule number of its own: it follows the rank table and the wall "
            "rule R32. "
            "It retreats without effect if named correctly, betrayed by its intel token, out of "
            "order, or met by an enemy Bomb effect."
        ),
        "rule": "",
    },
    {
        "rank": 10,
        "name": "Marshal",
        "ability": "+10 IP, or +5 IP and the enemy loses 5 IP",
        "text": (
            "You choose: take 10 IP, which always makes your side infiltrate (anything beyond "
            "10 is lost), or take 5 IP and knock 5 off the opponent, never below 0. "
            "With the second choice your +5 comes first, so if it makes you infiltrate and that "
            "captures the flag, the opponent keeps their IP. "
            "If the opponent activated their Spy earlier this round, your Marshal retreats when "
            "they turn it up, even on a wrong guess; it also retreats when named correctly, "
            "betrayed by its intel token, out of order, or met by an enemy Bomb effect."
        ),
        "rule": "R49",
    },
]


# --- the rules, one entry per id of RULES.md ------------------------------------------

RULES: list[dict] = [
    # Board and setup
    {
        "id": "R1",
        "title": "The track and the wall",
        "text": (
            "The double agent (DA) stands on a numbered track: 0 is the neutral centre, "
            "positive spaces are blue's territory (red pushes the DA that way) and negative "
            "spaces are red's. "
            "Each fort has a wall W spaces from the centre, and the flag lies one space beyond "
            "it. "
            "Because boards are counted by hand, W is a table option (wall distance, 2 to 8, "
            "default 4) and the setup screen explains how to count it."
        ),
        "phases": ["setup", "mission", "over"],
        "ranks": [],
        "see": ["R32", "R70", "R72"],
    },
    {
        "id": "R2",
        "title": "Starting position",
        "text": (
            "A game starts on day 1 with both IP markers at 0 and the DA on the centre space. "
            "Each side holds 1 deception token and the other 2 of the box's 4 wait in the "
            "spare supply."
        ),
        "phases": ["setup"],
        "ranks": [],
        "see": ["R1", "R51"],
    },
    {
        "id": "R3",
        "title": "First exhaustion",
        "text": (
            "Before day 1, each side has one of its soldiers drawn at random by the opponent; "
            "that soldier is exhausted (face up, not deployable) for the first round. "
            "The companion records both ranks, since everyone can see them."
        ),
        "phases": ["setup"],
        "ranks": [],
        "see": ["R15", "R45"],
    },
    # A round
    {
        "id": "R10",
        "title": "Deployment order",
        "text": (
            "Each side lays four soldiers face down on missions 1 to 4, with ranks strictly "
            "rising from left to right; only the Sergeant (4) may sit anywhere. "
            "For example 2-7-4-10 is fine but 3-2-... is not. "
            "Nobody types hidden ranks in: the companion checks the order as cards are turned "
            "up (R20, R60) and once more after a flag capture (R71)."
        ),
        "phases": ["intel", "mission", "capture_check"],
        "ranks": [4],
        "see": ["R20", "R60", "R71"],
    },
    {
        "id": "R11",
        "title": "Intel tokens",
        "text": (
            "Each day's intel card lists four ranks. "
            "A side must put an intel token on every mission holding one of those ranks, and "
            "none elsewhere, except that the Sergeant may bluff either way. "
            "Where the tokens lie is public and the phones record it per side and mission."
        ),
        "phases": ["intel", "mission"],
        "ranks": [4],
        "see": ["R21", "R61"],
    },
    {
        "id": "R12",
        "title": "Who starts",
        "text": (
            "On day 1 the starting side is picked at random: the companion can spin for the "
            "table, or you record the physical card. "
            "On days 2 and 3 the side that did not start the day before starts."
        ),
        "phases": ["intel"],
        "ranks": [],
        "see": ["R13"],
    },
    {
        "id": "R13",
        "title": "Order of the reveals",
        "text": (
            "A round has eight reveals. "
            "The starting side guesses the enemy's mission 1, then the other side guesses the "
            "starter's mission 1; mission 2 follows in the same way, and so on up to mission 4."
        ),
        "phases": ["mission"],
        "ranks": [],
        "see": ["R12", "R14", "R20"],
    },
    {
        "id": "R14",
        "title": "Playing a deception token",
        "text": (
            "Before the guess is spoken, the side whose card is about to be guessed may lay one "
            "of its deception tokens on it, if it has one. "
            "The token is gone afterwards whatever happens; it only pays if the card ends up "
            "activated (R50)."
        ),
        "phases": ["mission"],
        "ranks": [],
        "see": ["R50", "R51"],
    },
    {
        "id": "R15",
        "title": "End of the day",
        "text": (
            "Once all eight cards are up, each side's four deployed soldiers are shuffled and "
            "the opponent draws one of them (two under double damage, R47) to be exhausted next "
            "day, while the previous day's exhausted soldiers return to hand. "
            "The intel card goes to the old-intel pile, intel tokens come off and the day "
            "advances; IP markers and the DA stay where they are. "
            "The companion can make the random draw itself or record the physical one."
        ),
        "phases": ["round_end"],
        "ranks": [],
        "see": ["R3", "R47", "R72"],
    },
    # Resolving a reveal
    {
        "id": "R20",
        "title": "Step 1: order check",
        "text": (
            "A reveal is settled by checking five steps in turn; the first that applies "
            "decides. "
            "First: if the turned-up rank breaks its owner's rising order together with that "
            "owner's cards already up this round (Sergeants ignored), the incorrect-order "
            "penalty R60 applies."
        ),
        "phases": ["mission"],
        "ranks": [4],
        "see": ["R10", "R60", "R21"],
    },
    {
        "id": "R21",
        "title": "Step 2: intel check",
        "text": (
            "Next: if the card is not the Sergeant and its intel token (or missing token) does "
            "not match the day's intel card, it counts as identified whatever was guessed "
            "(R61)."
        ),
        "phases": ["mission"],
        "ranks": [4],
        "see": ["R11", "R61", "R22"],
    },
    {
        "id": "R22",
        "title": "Step 3: right guess",
        "text": (
            "Next: if the guesser named the actual rank, the card is identified: it retreats "
            "and the guesser scores (R30)."
        ),
        "phases": ["mission"],
        "ranks": [],
        "see": ["R30", "R23"],
    },
    {
        "id": "R23",
        "title": "Step 4: neutralised",
        "text": (
            "Next: if an effect the guesser set up earlier this round forces the card back, it "
            "retreats with no ability and no IP for anyone, and a deception token on it is "
            "wasted. "
            "That covers the guesser's pending Bomb effect (any card), their Spy (the Marshal) "
            "and their Miner (the Bomb)."
        ),
        "phases": ["mission"],
        "ranks": [1, 3, 7, 10],
        "see": ["R40", "R42", "R46", "R24"],
    },
    {
        "id": "R24",
        "title": "Step 5: wrong guess",
        "text": (
            "Otherwise the guess was simply wrong: the card is activated and its owner gets its "
            "ability (R40-R49), after which a deception token on it pays (R50)."
        ),
        "phases": ["mission"],
        "ranks": [],
        "see": ["R40", "R50"],
    },
    # Scoring and the double agent
    {
        "id": "R30",
        "title": "Scoring an identification",
        "text": (
            "An identified card retreats (tilted, no ability) and the guesser gains 2 IP, or "
            "4 IP if the guesser's Scout was activated earlier this round."
        ),
        "phases": ["mission"],
        "ranks": [2],
        "see": ["R22", "R41", "R61", "R60"],
    },
    {
        "id": "R31",
        "title": "Infiltration at 10 IP",
        "text": (
            "As soon as a side's IP would reach 10 or more, it infiltrates: the marker goes back "
            "to 0, anything beyond 10 is lost (the Colonel is the one exception, R48), and the DA "
            "moves toward the enemy fort as many steps as the day number. "
            "A side may infiltrate any number of times in a round."
        ),
        "phases": ["mission"],
        "ranks": [8],
        "see": ["R32", "R48", "R50"],
    },
    {
        "id": "R32",
        "title": "Moving the double agent",
        "text": (
            "The DA moves one step at a time toward the enemy fort of the side moving it. "
            "A step that lands on the enemy wall ends the move and any steps left are lost; a "
            "move that begins on the enemy wall captures the flag with its first step (R70). "
            "This holds for the Lieutenant, the General and infiltration alike, and a side never "
            "moves the DA toward its own fort except when R60 undoes its moves."
        ),
        "phases": ["mission"],
        "ranks": [5, 9],
        "see": ["R1", "R31", "R44", "R60", "R70"],
    },
    {
        "id": "R33",
        "title": "No negative IP",
        "text": (
            "IP never drops below 0: a Marshal's drain on a side with 3 IP takes only those 3."
        ),
        "phases": ["mission"],
        "ranks": [10],
        "see": ["R49"],
    },
    # Abilities
    {
        "id": "R40",
        "title": "Spy (1)",
        "text": (
            "+1 IP, plus one deception token from the spare supply if the owner holds fewer than "
            "2 and the supply is not empty. "
            "For the rest of the round, the enemy Marshal retreats when the Spy's owner turns it "
            "up, even on a wrong guess (R23), and an enemy Captain using an exhausted Marshal "
            "fizzles (R45)."
        ),
        "phases": ["mission"],
        "ranks": [1, 10],
        "see": ["R23", "R45", "R49", "R51"],
    },
    {
        "id": "R41",
        "title": "Scout (2)",
        "text": (
            "+2 IP. For the rest of the round every identification by the Scout's owner is "
            "worth 4 IP instead of 2, whether it came from a right guess, a wrong intel token "
            "or a broken order."
        ),
        "phases": ["mission"],
        "ranks": [2],
        "see": ["R30", "R60", "R61"],
    },
    {
        "id": "R42",
        "title": "Miner (3)",
        "text": (
            "+3 IP. For the rest of the round, the enemy Bomb retreats when the Miner's owner "
            "turns it up, even on a wrong guess (R23), and an enemy Captain using an exhausted "
            "Bomb fizzles (R45)."
        ),
        "phases": ["mission"],
        "ranks": [3, 7],
        "see": ["R23", "R45", "R46"],
    },
    {
        "id": "R43",
        "title": "Sergeant (4)",
        "text": (
            "+4 IP. The Sergeant is also the card that may stand anywhere in the order and "
            "may bluff with its intel token (R10, R11)."
        ),
        "phases": ["mission"],
        "ranks": [4],
        "see": ["R10", "R11"],
    },
    {
        "id": "R44",
        "title": "Lieutenant (5)",
        "text": (
            "No IP: the DA moves 1 step toward the enemy fort, following the wall rule R32. "
            "The General (9) does the same with 2 steps; it has no id of its own."
        ),
        "phases": ["mission"],
        "ranks": [5, 9],
        "see": ["R32", "R70"],
    },
    {
        "id": "R45",
        "title": "Captain (6)",
        "text": (
            "The owner picks: +6 IP, or use one of their own currently exhausted soldiers (their "
            "choice if two), gaining that soldier's IP and ability as if it were activated now; "
            "the exhausted card stays where it is. "
            "Ruling: if the used soldier is the Marshal or the Bomb and the opponent has an "
            "active Spy or Miner effect against it, the used ability fizzles and nothing at all "
            "is gained. "
            "The Captain still counts as activated, so a deception token on it pays (R50). "
            "Example: with your Colonel exhausted, the Captain can give you 8 IP with roll-over."
        ),
        "phases": ["mission"],
        "ranks": [1, 3, 6, 7, 10],
        "see": ["R3", "R15", "R40", "R42", "R50"],
    },
    {
        "id": "R46",
        "title": "Bomb (7)",
        "text": (
            "No IP. The owner's next reveal this round (an opponent's card) retreats whatever "
            "the guess (R23). "
            "Ruling: that reveal uses the effect up whatever decided its outcome; if it ended "
            "identified (right guess R22, wrong intel R21 or broken order R60), the guesser "
            "scores and double damage (R47) applies. "
            "A Bomb turned up when its owner has no reveal left this round (it came up on the "
            "8th reveal) does nothing."
        ),
        "phases": ["mission"],
        "ranks": [7],
        "see": ["R23", "R47", "R42"],
    },
    {
        "id": "R47",
        "title": "Double damage",
        "text": (
            "At the end of the round the opponent of the Bomb's owner has two soldiers drawn "
            "for exhaustion instead of one (R15). "
            "Ruling: at the end of day 3 there is no next day, so it has no effect."
        ),
        "phases": ["mission", "round_end"],
        "ranks": [7],
        "see": ["R15", "R46"],
    },
    {
        "id": "R48",
        "title": "Colonel (8)",
        "text": (
            "+8 IP, the only gain whose excess carries over. "
            "If it takes the side past 10, it infiltrates at 10 (R31) and then adds the rest "
            "from 0: at 7 IP, +3 reaches 10, the DA moves, then +5 remains. "
            "If that DA move captures the flag, the remainder is never added (R70)."
        ),
        "phases": ["mission"],
        "ranks": [8],
        "see": ["R31", "R70"],
    },
    {
        "id": "R49",
        "title": "Marshal (10)",
        "text": (
            "The owner picks: +10 IP (anything past 10 lost), or +5 IP and the opponent -5 IP "
            "(never below 0). "
            "The +5 is applied first, so an infiltration it causes happens before the drain, "
            "and if that infiltration captures the flag the drain is skipped (R70)."
        ),
        "phases": ["mission"],
        "ranks": [10],
        "see": ["R31", "R33", "R40", "R70"],
    },
    # Deception
    {
        "id": "R50",
        "title": "When deception pays",
        "text": (
            "If the card with a deception token on it ends up activated (R24), its owner gains "
            "4 more IP once the ability has been resolved; this can trigger an infiltration "
            "(R31) and any excess is lost. "
            "In every other outcome (identified, neutralised) the token is just spent. "
            "Example: a Sergeant with a token, wrongly guessed, is worth 4 + 4 = 8 IP."
        ),
        "phases": ["mission"],
        "ranks": [],
        "see": ["R14", "R24", "R31", "R51"],
    },
    {
        "id": "R51",
        "title": "At most 2 deception tokens",
        "text": (
            "A side never holds more than 2 deception tokens. "
            "Spent tokens leave the game, so the spare supply (2 at the start) can only shrink; "
            "a Spy finds nothing to take once it is empty."
        ),
        "phases": ["setup", "mission"],
        "ranks": [1],
        "see": ["R2", "R40", "R14"],
    },
    # Special rules
    {
        "id": "R60",
        "title": "Incorrect order",
        "text": (
            "When a side's card breaks its order (R20), every DA move that side made this round "
            "is undone: the steps it actually moved, not the steps it asked for, walking back "
            "toward its own fort and stopping on its own wall at worst, never capturing. "
            "Its IP marker drops to 0, and this card and all its cards still to come this round "
            "count as identified for the opponent, scored one by one in turn order whatever "
            "was guessed. "
            "It happens at most once per side per round, and the offending side keeps guessing "
            "and can still score on its own turns."
        ),
        "phases": ["mission", "capture_check"],
        "ranks": [4],
        "see": ["R10", "R20", "R30", "R32", "R71"],
    },
    {
        "id": "R61",
        "title": "Incorrect intel",
        "text": (
            "When a card's intel token does not match the intel card (R21), the card counts as "
            "identified whatever was guessed: it retreats and the guesser scores 2 IP, or 4 "
            "after their Scout (R30). "
            "The Sergeant is never caught this way."
        ),
        "phases": ["mission"],
        "ranks": [2, 4],
        "see": ["R11", "R21", "R30"],
    },
    # End of the game
    {
        "id": "R70",
        "title": "Capturing the flag",
        "text": (
            "A side whose DA move starts on the enemy wall captures the flag (R32), on any day. "
            "The game stops there and then: anything left of the reveal being resolved, such "
            "as a Colonel's remainder, a Marshal's drain or a deception bonus, is not applied. "
            "The win still has to pass the capture check (R71)."
        ),
        "phases": ["mission", "capture_check"],
        "ranks": [5, 8, 9, 10],
        "see": ["R32", "R71"],
    },
    {
        "id": "R71",
        "title": "Capture check",
        "text": (
            "After a flag capture the capturing side turns up any cards it still has face down "
            "this round (none, if all are up already). "
            "If its four cards of the day, looked at together, break the rising order (R10), "
            "the capture is cancelled and the opponent wins. "
            "Ruling: this includes an order break the side was already punished for under R60."
        ),
        "phases": ["capture_check", "over"],
        "ranks": [4],
        "see": ["R10", "R60", "R70"],
    },
    {
        "id": "R72",
        "title": "Winning after day 3",
        "text": (
            "If nobody captured the flag by the end of day 3, territory decides first: the DA in "
            "blue's territory means red wins, in red's territory blue wins. "
            "If the DA is on the centre space, the side with more IP wins, and equal IP is a "
            "draw."
        ),
        "phases": ["over"],
        "ranks": [],
        "see": ["R1", "R15"],
    },
    # Team play
    {
        "id": "R80",
        "title": "Team play",
        "text": (
            "Up to two players may share a side: one plays missions 1 and 2, the other missions "
            "3 and 4. "
            "Nothing else changes; the partners share their side's IP and deception tokens."
        ),
        "phases": ["setup", "intel", "mission"],
        "ranks": [],
        "see": ["R10", "R13"],
    },
]


# --- the phases ---------------------------------------------------------------------

PHASES: dict[str, dict] = {
    "setup": {
        "title": "Setting up",
        "text": (
            "Choose the table options (wall distance, teams) and put everything in its start "
            "position. The phones ask for each side's first exhausted soldier, drawn by the "
            "opponent."
        ),
    },
    "intel": {
        "title": "Deploy and intel",
        "text": (
            "Both sides lay out their four missions face down. The phones ask for the day's "
            "intel card, each side's intel tokens, and then who starts (a spin on day 1)."
        ),
    },
    "mission": {
        "title": "Missions",
        "text": (
            "Eight reveals in turn, mission by mission. For each, the defender may first play a "
            "deception token, the guesser names a rank, and the owner taps the rank turned up "
            "(plus the Captain's or Marshal's choice)."
        ),
    },
    "round_end": {
        "title": "End of the day",
        "text": (
            "The deployed soldiers are shuffled for the next day's exhaustion. The phones ask "
            "for the soldier each side had drawn by the opponent (two under double damage)."
        ),
    },
    "capture_check": {
        "title": "Capture check",
        "text": (
            "A flag was just captured. The capturing side's phone asks for the ranks of its "
            "cards still face down, to check its deployment order."
        ),
    },
    "over": {
        "title": "Game over",
        "text": (
            "The game has ended by a flag capture, a cancelled capture or the day-3 tally. The "
            "phones show the winner (or a draw) and why; nothing more is asked."
        ),
    },
}


# --- vocabulary ---------------------------------------------------------------------

GLOSSARY: list[dict] = [
    {"term": "side", "text": "Red or blue. With team play two players share a side (R80)."},
    {"term": "soldier", "text": "One of the ten cards a side owns, ranked 1 (Spy) to 10 (Marshal)."},
    {"term": "mission",
     "text": "One of the four face-down places a side fills each day, numbered 1 to 4 from left "
             "to right (R10)."},
    {"term": "reveal",
     "text": "One turn of the mission phase: the guesser names a rank for one enemy mission and "
             "the card is turned up (R13, R20-R24)."},
    {"term": "identified",
     "text": "The reveal went the guesser's way (right guess, wrong intel token or broken "
             "order): the card retreats with no ability and the guesser scores (R30)."},
    {"term": "activated",
     "text": "The guess was wrong and nothing forced the card back, so its owner gets its "
             "ability now (R24, R40-R49)."},
    {"term": "neutralised",
     "text": "Forced to retreat by an effect of the guesser (Bomb, Spy against the Marshal, "
             "Miner against the Bomb): no ability and no IP for anyone (R23)."},
    {"term": "IP",
     "text": "Infiltration points, each side's marker on the 0-10 track; reaching 10 means "
             "infiltrating (R31)."},
    {"term": "DA",
     "text": "The double agent, the black tower on the track between the two forts; whoever "
             "drives it over the enemy wall captures the flag (R1, R32)."},
    {"term": "DT",
     "text": "A deception token, laid on your own card before it is guessed; it pays 4 IP if "
             "the card is activated (R14, R50)."},
    {"term": "day",
     "text": "One round of the game; there are three, shown by the day marker. Infiltrating "
             "moves the DA as many steps as the day number (R31)."},
    {"term": "wall",
     "text": "The space on top of a fort, W steps from the centre (W is the wall distance "
             "option). A move stops on the enemy wall; the next move from there captures the "
             "flag (R1, R32)."},
    {"term": "flag",
     "text": "Lies one step beyond each wall. Capturing the enemy flag wins at once, subject to "
             "the capture check (R70, R71)."},
    {"term": "intel card",
     "text": "The card for the day listing four ranks that must carry an intel token (R11)."},
    {"term": "intel token",
     "text": "A public marker on a mission saying its soldier's rank is on the intel card; a "
             "wrong one gives the card away, except for the Sergeant (R11, R21, R61)."},
    {"term": "exhausted",
     "text": "Face up and out of play for the day, drawn by the opponent before day 1 and at "
             "each day's end; a Captain may still use it (R3, R15, R45)."},
]


# --- look-ups -----------------------------------------------------------------------

_SEARCH_KEYS = ("id", "title", "text", "name", "term", "ability")


def _matches(entry: dict, needle: str) -> bool:
    return any(needle in str(entry[k]).lower() for k in _SEARCH_KEYS if k in entry)


def search(query: str) -> list[dict]:
    """Rules, ranks and glossary entries whose id, title, name, term or text contains
    ``query`` (case-insensitive), in that order.  A blank query finds nothing.

    The entries are shallow copies, so a caller cannot change the help data.
    """
    needle = (query or "").strip().lower()
    if not needle:
        return []
    found = [e for e in RULES if _matches(e, needle)]
    found += [e for e in RANKS if _matches(e, needle)]
    found += [e for e in GLOSSARY if _matches(e, needle)]
    return [dict(e) for e in found]


def for_phase(phase: str) -> list[dict]:
    """The RULES entries that matter in ``phase`` (one of ``PHASE_NAMES``), in id order.
    An unknown phase gives an empty list."""
    return [dict(e) for e in RULES if phase in e["phases"]]


def rule(rule_id: str) -> dict | None:
    """The RULES entry with id ``rule_id`` (e.g. ``"R45"``), or None."""
    for e in RULES:
        if e["id"] == rule_id:
            return dict(e)
    return None


def rank(number: int) -> dict | None:
    """The RANKS entry of rank ``number`` (1-10), or None."""
    for e in RANKS:
        if e["rank"] == number:
            return dict(e)
    return None
