"""What a note says, as graph material: entities, aspects, facts and dependencies, bounded per note.

The model-free extractor reads the note's title, wikilinks, tags, headings, speakers ("Name: …" lines), named
things and repeated key phrases. Output is bounded by escalation: `normal` keeps everything; over the bound,
`stricter` drops key phrases and names seen once; still over, `deterministic` keeps the note's own structure
(title, links, tags, speakers) and its most frequent names, cut to the bound. A trivial note (chatter) yields
nothing at all."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass, field

from apps.core.text import MONTHS, NAME, STOP, WEEKDAYS
from apps.notes.text import plain_line, sentences
from apps.notes.turns import SPEAKER
from apps.notes.turns import speakers as speakers_of_note

MAX_ENTITIES = 20  # per note
MAX_FACTS_PER_ENTITY = 3  # per chunk
MAX_PER_CHUNK = 8  # entities co-mentioned in one chunk that get an edge between each pair
CONSTRAINT = re.compile(  # prescriptive rules, not "I always loved painting"
    r"\b(must( not)?|mandatory|required|forbidden|not allowed|prohibited|only (if|when|after)|at least|at most|"
    r"no more than|never without|is valid for)\b",
    re.I,
)
DEPENDS = re.compile(r"\b(depends on|requires|needs|uses|runs on|is part of|blocks|relies on|is built on)\b", re.I)
WORD = re.compile(r"[A-Za-z][A-Za-z0-9'-]+")
# Dates are when things happened, not things: a month or a weekday named in every other passage is a hub that
# links everything to everything (on LoCoMo dev, "July" and "August" were two of a conversation's top three).
CALENDAR = MONTHS | WEEKDAYS


def _spoken(line: str) -> str:
    """A line without its time stamp and speaker ("1:56 pm on 8 May, 2023: Caroline: Yeah, …" → "Yeah, …"), so
    the word that opens what was said is not taken for a name."""
    found = SPEAKER.match(line)
    return line[found.end() :] if found else line


@dataclass(frozen=True)
class Found:
    name: str
    kind: str  # EntityKind value
    source: str  # title | link | tag | speaker | name | phrase


@dataclass
class Extracted:
    level: str
    entities: dict[str, Found] = field(default_factory=dict)  # key → entity
    aspects: list[tuple[str, str]] = field(default_factory=list)  # (entity key, aspect name)
    facts: list[tuple[str, str, str, int]] = field(default_factory=list)  # (key, kind, text, chunk index)
    mentions: list[tuple[str, int]] = field(default_factory=list)  # (key, chunk index)
    edges: list[tuple[str, str, str, str]] = field(default_factory=list)  # (source, target, kind, reason)


def key_of(name: str) -> str:
    """A name's key: one entity per key and vault. Stable under itself (a key cut at 300 characters is stripped
    again), so a key read back and normalised once more still finds its entity."""
    return re.sub(r"\s+", " ", name.strip().lower())[:300].rstrip()


@dataclass(frozen=True)
class NoteText:
    title: str
    provenance: str
    links: list[str]
    tags: list[str]
    chunks: list[tuple[str, str]]  # (heading, text)

    @property
    def body(self) -> str:
        return "\n".join(text for _, text in self.chunks)


def _candidates(note: NoteText, spoken_by: set[str]) -> tuple[list[Found], Counter[str]]:
    body = note.body
    found = [Found(note.title, "note", "title")]
    found += [Found(link, "thing", "link") for link in note.links]
    found += [Found(tag, "tag", "tag") for tag in note.tags]
    speakers = Counter(name for name in SPEAKER.findall(body) if name in spoken_by)
    found += [Found(name, "person", "speaker") for name in speakers]
    said = _spoken if spoken_by else str
    names = Counter(m for line in body.splitlines() for m in NAME.findall(said(plain_line(line))))
    found += [Found(name, "thing", "name") for name in names if name.lower() not in STOP | CALENDAR]
    words = [w.lower() for w in WORD.findall(body)]
    pairs = Counter(f"{a} {b}" for a, b in itertools.pairwise(words) if a not in STOP and b not in STOP and a != b)
    found += [Found(phrase, "term", "phrase") for phrase, n in pairs.most_common(5) if n >= 2]
    counts: Counter[str] = Counter()  # per key, over every spelling of it ("Acme", "ACME")
    for name in {f.name for f in found}:
        counts[key_of(name)] += speakers.get(name, 0) + names.get(name, 0)
    return found, counts


KIND_RANK = {"person": 0, "note": 1, "tag": 2, "thing": 3, "term": 4}
STRUCTURE = {"title", "link", "tag", "speaker"}


def _bounded(found: list[Found], counts: Counter[str]) -> tuple[str, dict[str, Found]]:
    def unique(items: list[Found]) -> dict[str, Found]:
        out: dict[str, Found] = {}
        for f in items:
            key = key_of(f.name)
            if key and (key not in out or KIND_RANK[f.kind] < KIND_RANK[out[key].kind]):
                out[key] = Found(out[key].name if key in out else f.name, f.kind, f.source)
        return out

    normal = unique(found)
    if len(normal) <= MAX_ENTITIES:
        return "normal", normal
    stricter = unique(
        [f for f in found if f.source in STRUCTURE or (f.source == "name" and counts[key_of(f.name)] > 1)]
    )
    if len(stricter) <= MAX_ENTITIES:
        return "stricter", stricter
    # The note's own subject first: its links, tags and facts are written from it, so the cut never drops it.
    ordered = sorted(
        found, key=lambda f: (f.source != "title", f.source not in STRUCTURE, -counts[key_of(f.name)], f.name)
    )
    return "deterministic", dict(list(unique([f for f in ordered if f.source != "phrase"]).items())[:MAX_ENTITIES])


def mentions_key(key: str, text: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(key)}(?![\w])", text.lower()) is not None


def extract_model_free(note: NoteText) -> Extracted:
    spoken_by = speakers_of_note(note.body)  # who speaks in the note, read once
    found, counts = _candidates(note, spoken_by)
    level, entities = _bounded(found, counts)
    out = Extracted(level=level, entities=entities)
    # A title with nothing to key (blank) is no entity: then nothing is written from the note's subject.
    title = key_of(note.title) if key_of(note.title) in entities else ""
    authored = note.provenance == "authored"
    for key, f in entities.items() if title else ():
        if f.source == "link" and key != title:
            out.edges.append((title, key, "links_to", "user-asserted" if authored else "inferred"))
        elif f.source == "tag":
            out.edges.append((title, key, "tagged", "user-asserted" if authored else "inferred"))
    for index, (heading, text) in enumerate(note.chunks):
        if heading and title in entities:
            out.aspects.append((title, heading[:300]))
        present = [k for k in entities if k == title or mentions_key(k, text)]
        out.mentions += [(k, index) for k in present]
        _facts(out, present, title, text, index, spoken=bool(spoken_by) and SPEAKER.search(text) is not None)
        named = [k for k in present if k != title][:MAX_PER_CHUNK]
        out.edges += [(a, b, "co_mentioned", "single-memory") for i, a in enumerate(named) for b in named[i + 1 :]]
        out.edges += [(title, k, "co_mentioned", "single-memory") for k in named if title]
    return out


def _facts(out: Extracted, present: list[str], title: str, text: str, index: int, *, spoken: bool) -> None:
    """`spoken`: the passage is a conversation's turn, where a "must" is talk, not a rule."""
    per_entity: Counter[str] = Counter()
    for sentence in sentences(text):
        kind = "constraint" if CONSTRAINT.search(sentence) and not spoken else "fact"
        holders = [k for k in present if k != title and mentions_key(k, sentence)] or ([title] if title else [])
        for key in holders:
            if per_entity[key] < MAX_FACTS_PER_ENTITY or kind == "constraint":
                out.facts.append((key, kind, sentence[:1000], index))
                per_entity[key] += 1
        if DEPENDS.search(sentence) and len(holders) >= 2:
            verb = DEPENDS.search(sentence)
            assert verb is not None
            before = [k for k in holders if sentence.lower().find(k) < verb.start()]
            after = [k for k in holders if sentence.lower().find(k) > verb.end()]
            out.edges += [(a, b, "depends_on", "pattern-matched") for a in before[:1] for b in after[:2]]
