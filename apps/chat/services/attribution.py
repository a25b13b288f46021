"""Who the passages say did something. A question that names one person who speaks in the notes is answered only when
the passages that carry its claim (its content words less the name) say it of that person; a question that asks what
they would, might or could do, or are likely to, asks for a judgement, not a deed, and one that asks who did something
to them asks for the doer; both are answered as any other. A conversation turn's statements speak of the person asked
about when they tell of them by name ("Caroline told me she…"), else of its speaker when they tell the other what they
can or should do, of the one it addresses when they open with you or the speaker's I only frames them ("I bet you…"),
else of its speaker when they say I or we, of the one addressed when they say you; a question it asks the other about
themselves ("what got you into running?") is about the one addressed. When the turn that carries most of the claim
says it of someone else, and nothing carries three quarters as much of it of the person asked about, the answer
abstains and says who did. Besides the passages shown, the turns of the other speakers that a narrow lookup for the
claim's words finds (`apps.chat.services.witnesses`) are read too, when they carry more of it than two words: the
search ranks the named person's own turns first.

The speaker is read off the passage's speaker line, as the graph reads it when it records who speaks in a passage; the
one a turn addresses is the person it calls by name ("Thanks, Caroline!"), else the other person of the conversation."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from apps.chat.services.spans import Passage
from apps.core.text import bare_question, terms
from apps.notes.turns import SPEAKER, speaker_line
from apps.notes.turns import speakers as speaking_in

FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|us|our|ours)\b", re.I)
SECOND_PERSON = re.compile(r"\b(you|you're|you've|your|yours|yourself)\b", re.I)
# A turn calling out to someone: "Caroline, you …", "Thanks, Caroline!", "Hey Caroline!", "Thanks Mel!". The word
# called may be no one ("Wow, …", "Thankfully, they…"): a sentence calls out only when it is a person's name or the
# start of one (`_calls_out`).
CALLED = re.compile(r"(?:^|[,!.?]\s+|\b(?:[Hh]ey|[Hh]i|[Hh]ello|[Tt]hanks|[Bb]ye)\s+)([A-Z][a-z]+)\s*[,!]")
# A question asking what someone would, might or could do, or is likely to, asks for a judgement, not a deed.
JUDGEMENT = re.compile(r"\b(would|might|could|likely|probably)\b", re.I)
# "Who invited Nate to join her on the trails?" asks who did something to the person it names: the doer is the answer,
# not a claim about Nate. "Who did Nate invite?", "Who else …", "Who didn't …" and "Who Nate invited" still claim it.
ASKS_THE_DOER = re.compile(
    r"^[Ww]ho\s+(?!(?i:(?:did|does|do|is|was|are|were|has|have|had|will|won|would|can|cannot|could|should|shall|might"
    r"|may|must|am)(?:n?['’]t)?\b|(?:else|all|exactly|ever|besides)\b))[a-z]+\b"
)
SENTENCE = re.compile(r"(?<=[.!?])\s+")
# What the speaker tells the other they can or should do ("You can use coconut oil instead of butter", "You should
# come and join me") is the speaker's suggestion, not something the other did; "you can't imagine", "you must be so
# proud" are not.
ADVICE = re.compile(
    r"\byou\s+(?:can|could|should|might|may|must|need to|have to|ought to|gotta)(?!['’]t|not)\b"
    r"(?!['’]ve|\s+(?:have|be)\b)",
    re.I,
)
# A sentence that says I and you is about the other when it opens with what they did ("You mentioned your work at the
# shelter and it made me think …"; not "You're right, I've been …", "You can't imagine how …") or its only I frames
# what the other did ("I bet you never thought you'd get a third turtle", "I love that you chose pottery"; not "I
# think I told you …").
OPENS_WITH_YOU = re.compile(
    r"^(?:[A-Z][a-z]+,\s+|(?:wow|oh|yeah|so|and|but|well)[,!]?\s+)?(?:you|your)\b"
    r"(?!['’]re\s+(?:right|welcome)\b|\s+(?:know|see|guys)\b|\s+(?:can(?:['’]?t|not)|won['’]t)\s+(?:imagine|believe))",
    re.I,
)
FRAMED_YOU = re.compile(
    r"\b(?:i|i['’]m|i am|we)\s+(?:\w+\s+)?"
    r"(?:bet|think|guess|hope|know|believe|love|glad|proud|sure|tell|see|heard|remember|admire)\s+"
    r"(?:that\s+|how\s+|of\s+)?(?:[\w'’]+\s+){0,3}?(?:you|your)\b",
    re.I,
)
# How many of the claim's words the turn that says it of someone else must carry, the share of that the best turn
# saying it of the person asked about must reach to be answered, how many of the other speakers' turns found by the
# narrow lookup are read, and how many of the claim's words such a turn must carry to count: the lookup picked it for
# sharing those words, so sharing two of them says less than a passage found by the whole question does (chosen on
# LoCoMo dev conv-26 and conv-30; docs/evaluation.md). Counted in words, three quarters differs from the whole only
# when the other's turn carries four of them or more.
MIN_CLAIM = 2
KEEP_SHARE = 0.75
READ = 2
WITNESS_CLAIM = 3


@dataclass(frozen=True)
class Witness:
    """A turn found by the narrow lookup for the claim's words, outside the passages shown: cited by its path."""

    path: str
    text: str


@dataclass(frozen=True)
class Misattributed:
    asked: str  # the person the question names
    did: str  # the one the passages say it of
    number: int  # the passage that says so, for its citation; 0 when a witness says so
    path: str = ""  # the witness's note, when one says so

    @property
    def reason(self) -> str:
        where = f"[{self.number}]" if self.number else f"in {self.path}"
        return f"Nothing in your notes says {self.asked} did that; {self.did} did {where}."


def _turns(text: str, known: Iterable[str] = ()) -> list[tuple[str, str]]:
    """The passage's turns as (speaker, what they say): a line that opens with a speaker line of one who speaks
    (in the passage, `speaking_in`, or among the `known` speakers of the notes searched) starts a turn, the lines
    after it belong to it; lines before the first speaker belong to no one. A label ("Evening: …") starts none."""
    out: list[tuple[str, str]] = []
    spoken_by = speaking_in(text) | set(known)
    for line in text.splitlines():
        found = SPEAKER.match(line.strip())
        spoken = speaker_line(line.strip())
        if found and spoken and spoken[0] in spoken_by:
            out.append((spoken[0], line.strip()[found.end() :]))
        elif out and line.strip():
            out[-1] = (out[-1][0], f"{out[-1][1]} {line.strip()}")
    return out


def _named(name: str, text: str) -> bool:
    return re.search(rf"\b{re.escape(name)}\b", text, re.I) is not None


def _calls_out(sentence: str, people: Iterable[str]) -> bool:
    """Whether the sentence calls out to one of `people` (first names), by name or by its start ("Mel")."""
    called = CALLED.findall(sentence)
    return any(first == name or (len(name) >= 3 and first.startswith(name)) for name in called for first in people)


def _claims(
    body: str, speaker: str, addressee: str | None, asked: str, people: Iterable[str]
) -> list[tuple[str, str | None]]:
    """What a turn claims and of whom: a statement that speaks of the person asked about by name ("Caroline told me
    she…"), of them; one that tells the other what they can or should do, of its speaker; one that opens with you or
    whose I only frames what the other did, of the one addressed; one that says I or we, of its speaker; one that says
    you or calls out to one of `people` ("That charity race sounds great, Mel!"), of the one addressed; any other
    statement, of its speaker; a question it asks the other about themselves ("what got you into running?"), of the
    one addressed. Each person's part of the turn is read together."""
    parts: dict[str | None, list[str]] = {}
    for sentence in SENTENCE.split(body):
        if sentence.rstrip().endswith("?"):
            if SECOND_PERSON.search(sentence) and not FIRST_PERSON.search(sentence):
                parts.setdefault(addressee, []).append(sentence)
            continue
        if _speaks_of(sentence, speaker, asked):
            whom: str | None = asked
        elif ADVICE.search(sentence):
            whom = speaker
        elif OPENS_WITH_YOU.match(sentence) or (
            FRAMED_YOU.search(sentence) and len(FIRST_PERSON.findall(sentence)) == 1
        ):
            whom = addressee
        elif FIRST_PERSON.search(sentence):
            whom = speaker
        elif SECOND_PERSON.search(sentence) or _calls_out(sentence, people):
            whom = addressee
        else:
            whom = speaker
        parts.setdefault(whom, []).append(sentence)
    return [(" ".join(said), whom) for whom, said in parts.items()]


def _speaks_of(sentence: str, speaker: str, asked: str) -> bool:
    """Someone else's sentence that names the person asked about other than to call out to them: it tells of them
    ("Caroline told me she…"), where "Thanks, Caroline! I…" is the speaker's own."""
    return speaker != asked and _named(asked, sentence) and asked not in CALLED.findall(sentence)


@dataclass(frozen=True)
class Claim:
    person: str  # the first name of the one the question asks about
    name: str  # their name as the notes write it
    words: frozenset[str]  # the question's content stems less the name
    people: dict[str, str]  # first name → name, of everyone who speaks

    def lookup_text(self, question: str) -> str:
        """The question less the name, for a search that must not favour the person's own turns."""
        return re.sub(rf"\b{re.escape(self.person)}\b(?:'s)?", " ", question, flags=re.I)


def claim_of(question: str, passages: Sequence[Passage], speakers: Iterable[str] = ()) -> Claim | None:
    """The claim a question makes of the one person it names among those who speak (in the passages, or among
    `speakers`, the people who speak in the notes searched); None when it names no one, or two of them, or asks for
    a judgement, or asks who did something to them."""
    if JUDGEMENT.search(question) or ASKS_THE_DOER.match(bare_question(question)):
        return None
    speakers = list(speakers)
    turns = [(speaker, body) for p in passages for speaker, body in _turns(p.text, speakers)]
    people = {name.split()[0]: name for name in speakers} | {speaker.split()[0]: speaker for speaker, _ in turns}
    for _, body in turns:  # one called by name is a person too, when the question names them ("Wow, …" is not)
        people |= {name: name for name in CALLED.findall(body) if name not in people and _named(name, question)}
    asked = [first for first in people if _named(first, question)]
    if len(asked) != 1:
        return None
    words = set(terms(question)) - set(terms(people[asked[0]]))
    return Claim(asked[0], people[asked[0]], frozenset(words), people) if words else None


def witnesses(claim: Claim, found: Sequence[Witness]) -> list[Witness]:
    """The turns a narrow lookup found that are read as evidence: its first few said by someone other than the
    person asked about."""
    return [w for w in found if _speaker_of(w.text) != claim.person][:READ]


def _speaker_of(text: str) -> str:
    spoken = speaker_line(text.strip())
    return spoken[0].split()[0] if spoken else ""


def misattributed(
    question: str, passages: Sequence[Passage], speakers: Iterable[str] = (), found: Sequence[Witness] = ()
) -> Misattributed | None:
    """Who the passages (and `witnesses` of the turns `found` by a narrow lookup for the claim, outside the passages)
    say did what the question asks a named person about, when that is someone else; None when the question makes no
    claim of one person (`claim_of`) or when they say it of the one it names."""
    known = list(speakers)
    claim = claim_of(question, passages, known)
    if claim is None:
        return None
    person, people = claim.person, claim.people
    cited = [(p.number, "", speaker, body) for p in passages for speaker, body in _turns(p.text, known)]
    cited += [(0, w.path, speaker, body) for w in witnesses(claim, found) for speaker, body in _turns(w.text, known)]
    others = [first for first in people if first != person]
    best_asked, best_other = 0, (0, "", 0, "")
    for number, path, speaker, body in cited:
        needed = MIN_CLAIM if number else WITNESS_CLAIM
        first = speaker.split()[0]
        called = [name for name in CALLED.findall(body) if name != first and name in people]
        addressee = called[0] if called else person if first != person else others[0] if len(others) == 1 else None
        for text, whom in _claims(body, first, addressee, person, people):
            carried = len(claim.words & set(terms(text)))
            if whom == person:
                best_asked = max(best_asked, carried)
            elif whom is not None and whom in people and carried >= needed and carried > best_other[0]:
                best_other = (carried, people[whom], number, path)
    carried, did, number, path = best_other
    if carried >= MIN_CLAIM and best_asked < KEEP_SHARE * carried:
        return Misattributed(asked=people[person], did=did, number=number, path=path)
    return None
