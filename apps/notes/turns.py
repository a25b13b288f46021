"""Conversations among notes: a turn is a passage that opens with a speaker line ("Name: …", after an optional time
stamp) in a note that is a conversation. Notes open lines with labels the same way ("Evening: pasta", "Leaning:
OIDC", "Example: …"), so the line alone does not make a turn."""

from __future__ import annotations

import re

# "Name: …" at a line's start, after an optional stamp ("1:56 pm on 8 May, 2023: Caroline: …").
SPEAKER = re.compile(r"^(?:[^\n]{1,40}?:\s)?([A-Z][a-z]+(?: [A-Z][a-z]+)?):\s", re.M)


def speakers(text: str) -> set[str]:
    """Who speaks in a note's text: the names on speaker lines that are turns. A line is a turn after a time stamp
    ("1:56 pm on 8 May, 2023: Caroline: …"), or among speaker lines running on from one person to another and back.
    A label that opens a line ("Evening: pasta", "Leaning: OIDC", "Example: …") is neither: it stands once, or
    among other labels, or between lines of prose."""
    found: set[str] = set()
    run: list[str] = []
    for line in [*text.splitlines(), "."]:
        if not line.strip():
            continue
        match = SPEAKER.match(line.strip())
        if match is not None and any(ch.isdigit() for ch in match.group(0)[: match.start(1)]):
            found.add(match.group(1))
        elif match is not None:
            run.append(match.group(1))
            continue
        if len(set(run)) >= 2 and max(map(run.count, run)) >= 2:
            found |= set(run)
        run = []
    return found


def is_conversation(text: str) -> bool:
    """Whether a note's text holds a conversation's turns (`speakers`)."""
    return bool(speakers(text))


def is_turn(text: str, spoken_by: set[str]) -> bool:
    """Whether a passage is a turn, given who speaks in its note (`speakers`): it opens with a line of one of them."""
    match = SPEAKER.match(text.lstrip())
    return match is not None and match.group(1) in spoken_by
