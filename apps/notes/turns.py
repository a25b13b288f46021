"""Conversations among notes: a turn is a passage that opens with a speaker line ("Name: …", after an optional time
stamp) in a note that is a conversation. Notes open lines with labels the same way ("Evening: pasta", "Leaning:
OIDC", "Example: …"), so the line alone does not make a turn."""

from __future__ import annotations

import re
from collections import Counter

# "Name: …" at a line's start, after an optional stamp ("1:56 pm on 8 May, 2023: Caroline: …").
SPEAKER = re.compile(r"^(?:[^\n]{1,40}?:\s)?([A-Z][a-z]+(?: [A-Z][a-z]+)?):\s", re.M)
_NAMED = re.compile(r"^([A-Z][a-z]+(?: [A-Z][a-z]+)?):\s")
# A time stamp holds a clock time or a year ("1:56 pm on 8 May, 2023"); "Day 2" or "Step 1" is no stamp.
_STAMP = re.compile(r"\d{1,2}:\d{2}|\b\d{4}\b")


def speaker_line(line: str) -> tuple[str, bool] | None:
    """Who a line says speaks ("Name: …") and whether after a time stamp; None for no speaker line. Without a stamp
    the line's first name speaks: "Caroline: Yes: I agree" is Caroline's."""
    found = SPEAKER.match(line)
    if found is None:
        return None
    stamped = _STAMP.search(found.group(0)[: found.start(1)]) is not None
    named = None if stamped else _NAMED.match(line)
    return (named.group(1) if named else found.group(1)), stamped


def speakers(text: str) -> set[str]:
    """Who speaks in a note's text: the names on speaker lines that are turns. A line is a turn after a time stamp
    ("1:56 pm on 8 May, 2023: Caroline: …"), or among speaker lines running on from one person to another and back.
    A label that opens a line ("Evening: pasta", "Leaning: OIDC", "Example: …") is neither: it stands once, or
    among other labels, or between lines of prose."""
    found: set[str] = set()
    run: Counter[str] = Counter()
    for line in [*text.splitlines(), "."]:
        if not line.strip():
            continue
        spoken = speaker_line(line.strip())
        if spoken is not None and spoken[1]:
            found.add(spoken[0])
        elif spoken is not None:
            run[spoken[0]] += 1
            continue
        if len(run) >= 2 and max(run.values()) >= 2:
            found |= set(run)
        run = Counter()
    return found


def is_conversation(text: str) -> bool:
    """Whether a note's text holds a conversation's turns (`speakers`)."""
    return bool(speakers(text))


def is_turn(text: str, spoken_by: set[str]) -> bool:
    """Whether a passage is a turn, given who speaks in its note (`speakers`): it opens with a line of one of them."""
    spoken = speaker_line(text.lstrip())
    return spoken is not None and spoken[0] in spoken_by
