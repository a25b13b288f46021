"""The answer a reader wants, read off the passages without a model: for "when" a date (resolved against the
passage's own date), for "who" a person, for "where" a place, for "how many" a number, for "how do I" the key to
press or the command to type, otherwise the best sentence itself. Only prose is read: headings, code blocks, HTML,
table rows, callout markers and empty list items are never an answer, and a property or a list of links only when
the passages have no sentence."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import date
from functools import cache
from itertools import islice, zip_longest

from apps.chat.services.dates import MONTH_NAMES, days_named, said_on, when_in, written_on
from apps.core.text import (
    STOP,
    TIME_EXPRESSION,
    asked_for,
    asks_when,
    names_of_thing,
    stem,
    terms,
    thing_asked_about,
    titled_as,
)
from apps.notes.blocks import OUTLINE
from apps.notes.markdown import DECISION_HEADING as DECISION_HEADING_WORDS
from apps.notes.markdown import (
    INLINE_LINK,
    INLINE_TAG,
    LIST_ITEM,
    LOGSEQ_TAG,
    TEMPLATE_PLACEHOLDER,
    WIKILINK,
    heading_match,
    heads_a_list,
)
from apps.notes.syntax import code_block_lines
from apps.notes.text import names_only, plain_cell, plain_line, prose_lines, split_sentences

# A conversation turn as the passages carry it: "<time> on <date>: <Speaker>: <text>".
TURN = re.compile(r"^\s*(?:[^\n]{0,40}?\d{4}:\s+)?([A-Z][\w'.-]*(?: [A-Z][\w'.-]*)?):\s+(.*)$", re.S)
DATE_PREFIX = re.compile(r"^\s*[^\n]{0,40}?\d{4}:\s+")
# A question that asks what to press or type: "how do I …", or one that asks which shortcut, key or command.
ASKS_WHAT_TO_TYPE = re.compile(
    r"^\s*how (do|can|to|should|would)\b|\b(shortcut|hotkey|keybinding|keystroke)s?\b"
    r"|\b(which|what)('s|\s+is|\s+are)?\s+(the\s+)?(\w+\s+)?(key|keys|command)s?\b",
    re.I,
)
# Markers, a line that only embeds a note or an image (Logseq sizes one: "![a.png](a.png){:height 560, :width 960}"),
# and a table of contents' entry (a link to a heading of the same page): what a page shows, not what it says.
NOT_AN_ANSWER = re.compile(
    r"^\s*(#{1,6}\s|\||>\s*\[!|[-*+]\s*(\[.\]\s*)?$|```|---|\[!|([-*+]\s+)?#\+\w"
    r"|([-*+]\s+)?!\[\[[^\]]*\]\]\s*$|([-*+]\s+)?!\[[^\]]*\]\([^)]*\)(\{:[^}]*\})?\s*$"
    r"|([-*+]\s+|\d+[.)]\s+)?\[[^\]]*\]\(#[^)]*\)\s*$)"
)
# "How do I make …", "how can I switch …", "how to open …": the action asked for.
ASKS_TO_DO = re.compile(r"^\s*how\s+(?:do|can|could|should|would)\s+(?:i|we|you)\s+(\w+)|^\s*how\s+to\s+(\w+)", re.I)
# What a sentence says its key or command is for: "To review all cards, …", "… to cycle through …".
PURPOSE = re.compile(r"\b[Tt]o\s+([a-z]+)")
# Verbs that ask for one action, as a reader would say it either way.
SAME_ACTION = [
    frozenset(stem(word) for word in group.split())
    for group in (
        "make create add new write start insert type put",
        "open show view see display launch go jump navigate",
        "switch toggle change turn set enable disable use",
        "delete remove erase clear",
        "find search look locate filter",
        "move drag reorder indent outdent",
        "copy duplicate paste",
        "close hide collapse fold",
        "edit rename modify update",
        "link reference embed",
    )
]
KEYS = re.compile(
    r"\b(?:(?:Ctrl|Control|Cmd|Command|Alt|Option|Shift|Super|Win|Mod|Meta)\s*[-+]\s*)+(?:[A-Za-z0-9]|F\d{1,2}|"
    r"Enter|Return|Tab|Space|Esc|Escape|Up|Down|Left|Right|Delete|Backspace|[,./;\[\]'`=-])\b"
)
SHORTCUT_WORD = re.compile(r"\b(shortcut|hotkey|keybinding|keystroke)", re.I)
CODE = re.compile(r"`([^`\n]+)`")
CLOSING_QUOTES = '"”'
QUOTED = re.compile(r"[\"“]([^\"”\n]{3,80})[\"”]")
STEP = re.compile(r"^[ \t]*\d{1,2}[.)][ \t]+")
TRAILING_STOP = re.compile(r"(?<=\w)\.$")  # a step's full stop, not the one of a command ("git add .")
# What may stand between a key and the command typed after it: "Ctrl+Shift+P → "Foam: Open Daily Note"", "press
# Ctrl+Shift+P and type "Foam: Show Graph"", "Cmd+P, then run `Foam: Create New Note`".
KEY_THEN_COMMAND = re.compile(
    r"^(?:\s|→|->|>|,|;|:|\b(?:and|then|type|run|enter|select|choose|search for|pick)\b)*[\"“`]?$", re.I
)
HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
TAG_OR_LINK_TAG = re.compile(rf"{INLINE_TAG.pattern}|{LOGSEQ_TAG.pattern}")
APP_PROPERTY = re.compile(r"^\s*(?:[-*+]\s+)?(?:logseq\.[\w.-]+|id|collapsed)::", re.I)
# Code a reader can type as it stands: a slash command ("/Code block"), an editor's palette command ("Foam: Open
# Daily Note"), a sequence of keys ("t r"), or a command line (a program and its arguments) that the sentence hands
# over ("run `yarn install`") or that takes options. Other code is a name, a value or a placeholder ("note-name",
# "filename format"), which answers nothing on its own.
_PALETTE = r"[A-Z][\w-]*(?:\s[A-Z][\w-]*)*:\s+[A-Z][\w-]*(?:\s+[\w-]+)*"
TYPED_COMMAND = re.compile(rf"^(?:/[A-Za-z][\w-]*(?:\s+[\w-]+)*|{_PALETTE}|[a-z0-9](?:\s+[a-z0-9])+)$")
PALETTE_COMMAND = re.compile(rf"^{_PALETTE}$")
COMMAND_LINE = re.compile(r"^[a-z][\w.-]*(?:\s+\S+)+$")
OPTION = re.compile(r"\s--?[a-z]")
HANDED_OVER = re.compile(
    r"\b(run|running|type|typing|enter|execute|invoked? as|press|pressing|use|using)\s*:?\s*$", re.I
)
NUMBER_WORDS = re.compile(
    r"\b(\d+(?:[.,]\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|dozen|twice|once|"
    r"a couple|a few|several)\b",
    re.I,
)
PERSON = re.compile(r"\b[A-Z][a-z]+(?:\s[A-Z][a-z]+)?\b")
# Capitalised words that are no one: the calendar's, and a name the sentence gives a thing ("the Lindenhof building").
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
CALENDAR = {*MONTH_NAMES, *_WEEKDAYS, *(f"{day}s" for day in _WEEKDAYS)}  # "on Fridays" is a day too
# Words that open a sentence capitalised without naming anyone (stop words aside), and pronouns that name no one
# in particular ("Everyone"); a number word ("One week per person") is no one either.
OPENERS = {
    *("since", "during", "until", "while", "however", "last", "next", "now", "today", "hey", "oh", "wow", "well"),
    *("hourly", "nightly", "daily", "weekly", "fortnightly", "monthly", "quarterly", "yearly", "annually"),
    *("tomorrow", "yesterday", "tonight", "usually", "sometimes", "often", "then", "later", "afterwards"),
}
OPENING_WORD = re.compile(rf"\s*(?i:{'|'.join(sorted(OPENERS))})\s+")
# A person's name in a text: two capitalised words are one name unless the first opens the sentence as a word of
# its own ("Weekly Ana runs the sync." names Ana).
NAMED_PERSON = re.compile(rf"\b(?!(?i:{'|'.join(sorted(OPENERS))})\s)[A-Z][a-z]+(?:\s[A-Z][a-z]+)?\b")
# A capitalised word ending in -ing names an act in a title ("ADR-007 Choosing pgvector"), not a person.
GERUND = re.compile(r"[A-Z][a-z]{2,}ing")
LAST_JOINTS = (", ", " and ", ", and ")
SETTLED = re.compile(r"^(?:agreed|decided|decision|resolved|settled)\b", re.I)
ASKED_NAME = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][\w-]*")
NO_ONE_IN_PARTICULAR = {"everyone", "everybody", "someone", "somebody", "anyone", "anybody", "nobody"}
# "Adaeze is not on the rota": what the sentence says of her is that she did not, so she answers no "who"; "is not
# only", "can't wait" say more, not less
SAID_NOT_TO = re.compile(
    r"^\s+(?:(?:is|was|are|were|does|did|do|has|had|have|will|would|can|could|should)(?:\s+(?:not|never)\b|n['’]t\b)|"
    r"(?:never|won['’]t|can['’]t)\b)(?!\s+(?:only|wait)\b)",
    re.I,
)
ASKS_WHO_DID_NOT = re.compile(r"\b(?:not|never|no)\b|n['’]t\b", re.I)
# The head of a line that names what the rest says of it: "Herr Brandt — facilities manager … Signs off on …".
LIST_HEAD = re.compile(r"^((?:\S+\s){0,3}\S+)\s+[—–]\s")
# What a rule leaves out: "Not needed for: … swapping a disk in a hot-swap bay.", "except on weekends", "unless …".
EXCEPTION = re.compile(
    r"\b(?:except\w*|unless|exempt\w*|no\s+need|(?:not|n['’]t)\s+(?:needed|required|necessary|apply|applies))\b", re.I
)
# An index's entry: what heads a line, then a dash and what follows ("[[Ops Handbook]] — runbooks, postmortems, …").
INDEX_ENTRY = re.compile(r"^\s*(\S.*?)\s+[—–-]\s+\S")
# The end of a sentence that says where something is written: "… are in Celery Notes.", "… written up in the Ops
# Handbook." (`_points_elsewhere` checks that what it names is a link of the passage). A trailing ", see X" is an aside
# to a sentence that says something ("10 min — scales with the metronome, see Metronome Drills.").
ENDS_IN_A_NAMED_PLACE = re.compile(
    r"\b(?:is|are|was|were|described|documented|written up|covered|explained|recorded|listed|kept|noted|tracked)\s+in"
    r"\s+(?:the\s+)?([^.,;:!?]+?)\s*[.!]?$",
    re.I,
)
# A sentence that only says where something is written: "See Logseq Sync Encryption.", "Full detail in Redis Outage
# Postmortem.", "For more, see the [[Ops Handbook]]", "This doc describes the encryption scheme.". What it points to is
# named (capitalised, quoted or linked): "Refer to the on-call engineer" and "Details are in flux" say something.
POINTS_ELSEWHERE = re.compile(
    r"^(?i:see(?:\s+also)?|refer\s+to|read\s+more\s+(?:in|at)|(?:full|more)\s+details?\s+(?:are\s+|is\s+)?(?:in|at|on)"
    r"|details?\s+(?:are\s+)?(?:in|at)|for\s+more(?:\s+details|\s+information)?,?\s+see)"
    r"\s+(?:the\s+)?(?=[A-Z\"“\[]|https?:)"
    r"|^(?i:this|the)\s+(?i:doc|document|page|note|section|article|guide)\s+(?i:describes|covers|explains|is\s+about)\b"
)
# A verb's irregular forms, read back to the one a question asks with ("What did Mel make?", "we made pots").
PAST_ROOT = dict(
    pair.split(":")
    for pair in (
        "said:say wrote:write made:make took:take ran:run went:go saw:see told:tell got:get gave:give kept:keep "
        "led:lead left:leave met:meet paid:pay put:put sent:send set:set spent:spend thought:think won:win built:build "
        "brought:bring bought:buy came:come found:find knew:know chose:choose held:hold drove:drive flew:fly drew:draw "
        "grew:grow threw:throw broke:break began:begin sang:sing rode:ride wore:wear spoke:speak stood:stand sold:sell "
        "felt:feel heard:hear meant:mean lost:lose read:read hit:hit cut:cut let:let ate:eat fell:fall forgot:forget "
        "slept:sleep taught:teach caught:catch fought:fight understood:understand woke:wake"
    ).split()
)
PARTICIPLE_ROOT = dict(
    pair.split(":")
    for pair in (
        "written:write taken:take gone:go seen:see given:give known:know chosen:choose driven:drive flown:fly "
        "drawn:draw grown:grow thrown:throw broken:break begun:begin sung:sing worn:wear spoken:speak eaten:eat "
        "fallen:fall forgotten:forget learnt:learn"
    ).split()
)
_IRREGULAR_PAST = "|".join(PAST_ROOT)
# What follows a name that is a sentence's subject: its verb ("Maria signs off", "Jun noticed", "Jun held", "Maria
# usually runs"), its possessive ("Maria's team") or an aside about it ("Tobias, our staff engineer, leads",
# "Maria (design lead) will review"); a word in -s that a verb follows is a plural ("Ghost notes are …").
_AUXILIARY = "is|was|are|were|has|had|have|will|would|can|could|did|does|do|may|might|must|should|shall"
# Verbs a plural noun takes ("Restic snapshots run nightly"): after a word in -s, they make it a noun.
_PLURAL_VERBS = "need|run|go|live|sit|stay|get|show|keep|look|work|come|take|make|help|happen|belong|seem|say|use"
SUBJECTS_VERB = re.compile(
    rf"^(?:'s\b|\s*\(|,\s+(?:our|the|a|an|my|his|her|their|who)\b|(?:\s+(?:\w+ly|also|always|never|often|now|then|just|still|already|first|later))?"
    rf"\s+(?:[a-z]+s\b(?!\s+(?:{_AUXILIARY}|{_PLURAL_VERBS})\b)|(?:[a-z]+ed|{_AUXILIARY}|{_IRREGULAR_PAST})\b))"
)
# "Who vetoed …?", "Who wrote …?": a question about who did something, by its verb.
WHO_DID = re.compile(rf"^\s*who\s+([a-z]+ed|{_IRREGULAR_PAST})\b", re.I)
# "Who is on call after Priya?" and a list of three names or more, in order: "Tobias, Priya, Maren, Jun".
IN_ORDER_ASKED = re.compile(r"\b(after|before)\s+([A-Z][a-z]+)\b")
NAMES_IN_ORDER = re.compile(
    r"\b[A-Z][a-z]+(?:(?:\s*(?:,|→|->)\s*(?:(?:and|then)\s+)?|\s+(?:and|then)\s+)[A-Z][a-z]+){2,}\b"
)
PERSON_WORD = re.compile(r"[A-Z][a-z]+")
THE_BEFORE = re.compile(r"\b(?:the|a|an|this|that|our|their)\s+$", re.I)
# A name that says what kind a thing is: "a folder of Markdown notes", "for Python scripts" (not "by Priya").
NAMES_A_KIND_AFTER = re.compile(r"\b(?:of|for|with|about|into|on)\s+$")
NAMES_A_KIND_BEFORE = re.compile(r"^\s+([a-z]{2,}s)\b")
# Where something is: the capitalised words after it are a place's or a title's, not a person's ("described in Backup
# and Restore Runbook", "at Lindenhof"); a name said as someone's ("in Maria's hands") is still a person's.
PLACE_OR_TITLE_BEFORE = re.compile(r"\b(?:in|at|near|inside)\s+(?:the\s+)?(?:[A-Z][\w-]*\s+(?:and|&|of|for)\s+)?$")
_MONTHS = "|".join(MONTH_NAMES)
# A number as notes write it: "1,200,000", "1 200 000", "1.200,50", "2.5", "2 1/2", "1/2".
_NUMBER = r"\d{1,3}(?:[,. ]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?(?:\s\d/\d)?|\d/\d"
_QUANTITY = (
    rf"{_NUMBER}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
    r"forty|fifty|sixty|a few|a couple of|several|half an?"
)
_TIME_UNIT = r"seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|nights?|weeks?|months?|years?|decades?"
# "22 to 25 minutes", "1 hour 53 minutes", "an hour and a half", "a day or two": what "how long" asks for.
DURATION = re.compile(
    rf"\b(?:{_QUANTITY})(?:\s*(?:to|-|–|or)\s*(?:{_QUANTITY}))?\s*(?:{_TIME_UNIT})\b"
    rf"(?:,?\s+(?:and\s+)?(?:{_QUANTITY})\s*(?:{_TIME_UNIT})\b|\s+and\s+a\s+half\b|\s+or\s+(?:two|three|\d+)\b)?",
    re.I,
)
# "38 €", "€ 38", "$5M", "500 g", "12 %": what "how much" asks for. One-letter units only in lower case ("5G" is a
# network, "5 g" a weight).
_SCALE = r"(?:\s?(?i:k|m|bn|million|billion|thousand)\b)?"
_CURRENCY = r"€|\$|£|(?i:eur|euros?|usd|dollars?|pounds?|chf|francs?)\b"
_UNIT = rf"{_CURRENCY}|%|(?i:percent)|g|kg|mg|ml|l|(?i:litres?|liters?)|cm|mm|km|(?i:gb|mb|tb)|°[cCfF]"
AMOUNT = re.compile(
    rf"(?:[€$£]\s?(?:{_NUMBER}){_SCALE}|\b(?:{_NUMBER})(?:\s*(?:to|-|–)\s*(?:{_NUMBER}))?{_SCALE}\s?(?:{_UNIT})(?!\w))"
)
_TIMES = r"once|twice|(?:\d+|two|three|four|five|six|ten)(?:\s*(?:-|–|to|or)\s*(?:\d+|three|four|five|six|ten))? times"
_EVERY = (
    r"every\s+(?:other\s+|\d+\s+|(?:two|three|four|five|six|ten|few)\s+)?"
    r"(?:second|minute|hour|day|night|week|month|quarter|year|morning|evening|\w+day)s?"
)
# "quarterly", "twice a year", "once every two weeks", "2-3 times a week", "every 12 hours": what "how often" asks.
FREQUENCY = re.compile(
    rf"\b(?:(?:{_TIMES})(?:\s+or\s+(?:{_TIMES}))?\s+(?:(?:a|an|per|each)\s+\w+|{_EVERY})|{_EVERY}"
    r"|hourly|nightly|daily|weekly|fortnightly|monthly|quarterly|yearly|annually)\b",
    re.I,
)
# What a "how many" question counts: the words after it up to its verb ("How many vacation days do I get?").
HOW_MANY_OF = re.compile(
    r"\bhow many\s+((?:[A-Za-z-]+\s+){0,2}?[A-Za-z-]+)(?=\s+(?:do|does|did|is|are|was|were|has|have|had|can|could|"
    r"will|would|should|must|of|in|on|at|for|per|to|went|came)\b|\s*[?,.]|\s*$)",
    re.I,
)
# A range or the factors a count is said with: "35 to 40 minutes", "4 × 8 TB".
WITH_ITS_FACTORS = re.compile(r"^\s*(?:[×x]|to|or|-|–)\s*\d+(?:[.,]\d+)?")
# Units a number measures time, size, heat or money in: "One week per person", "one free day", "a 30 × 40 cm tray",
# "220 °C", "5 €". Between the number and the unit only a describing word: "twice this year", "3 a day" count.
_MEASURE_UNIT = rf"{_TIME_UNIT}|cm|mm|km|kg|g|mb|gb|tb|%|percent|°\s?[CF]|degrees|{_CURRENCY}"
MEASURES = "seconds minutes hours days nights weeks months years decades cm mm km kg mb gb tb percent degrees"
MEASURE_AFTER = re.compile(
    rf"^\s*(?:(?!(?:a|an|the|per|each|every|this|that|last|next|a|times?)\b)[a-z]+\s+)?(?:{_MEASURE_UNIT})(?!\w)", re.I
)
# How notes shorten the units a question spells out: "35 min" for "how many minutes".
UNIT_SHORT = {
    "min": "minutes",
    "mins": "minutes",
    "hr": "hours",
    "hrs": "hours",
    "h": "hours",
    "sec": "seconds",
    "secs": "seconds",
}
# Words that count times, not things: "twice in a row" says nothing of how many people.
TIMES_WORDS = {"once", "twice"}
VAGUE_COUNTS = ("a couple", "a few", "several")
# A number that is part of a date or a clock time ("20 April", "April 20", "18:00") or a year counts nothing.
_DATE_AFTER = re.compile(rf"^(?:[:/]\d|\s*(?:{_MONTHS})\b|(?:st|nd|rd|th)\b)", re.I)
DATE_BEFORE_CHARS = 12  # what a number is read after to tell a date's day from a count: "September 16", "2024-05-"
_DATE_BEFORE = re.compile(rf"(?:\b(?:{_MONTHS})\s*|\d[:./-]|#)$", re.I)
PLACE = re.compile(r"\b(?:in|at|to|from|near)\s+((?:the\s+)?[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)")
# A line's bold lead-in that labels what follows ("**Release date.** Adaeze proposed …"): a label, not a statement
# (`_label`).
BOLD_LEAD = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?\*\*([^*]+)\*\*([.:]?)\s+\S")
LISTED = 10
CODE_LINES = 3
CODE_NAME_CHARS = 4  # a name in code a sentence gives, long enough to find it in a code block ("OLLAMA_HOST", not "x")
# A setting's or variable's name ("OLLAMA_HOST", "foam.graph.style"), not a word an example uses ("card", "note-name").
SETTING_NAME = re.compile(r"[A-Za-z][\w-]*(?:[._][\w-]+)+|[A-Z][A-Z0-9]+")
FENCE = re.compile(r"^(?:`{3,}|~{3,}|#\+(?:BEGIN|END)_\w+)", re.I)  # Logseq's #+BEGIN_EXAMPLE too
GIVES_AN_EXAMPLE = re.compile(r"\b(?:for example|for instance|e\.g\.|like this|as follows)\b", re.I)
CODE_COMMENT = re.compile(r"^(?:#+|//|--|;)\s|^[\W_]+$")  # a comment or heading, or punctuation alone ("---", "{")
# A table row answers a what or which question when its cells say this many of its words at least, and more than
# any sentence: "Which device is the backup target?" and the rack's row for the NAS.
RECORD_WORDS = 2
# A question asking what was decided or chosen ("What did ADR-004 decide?", "Which job queue did we choose?"), and
# the heading a note gives the part where it says what it settled on ("## Decision", "## Decision for v1"): the rest
# of such a note weighs the options, each in words as close to the question.
ASKS_WHAT_WAS_DECIDED = re.compile(
    r"\b(?:decide[sd]?|decision|choose|chose|chosen|pick(?:ed)?(?!\s+up\b)|agreed\s+on|opted\s+for|settled\s+on|"
    r"(?:we|they|you|i)\s+(?:go|went)\s+with)\b",
    re.I,
)
DECISION = "Decision"
DECISION_HEADING = re.compile(DECISION_HEADING_WORDS, re.I)
# A question that asks when something happens as a rule ("When does the weekly review happen?"): the date a note
# was written or a turn was said is not when it recurs.
ASKS_WHEN_AS_A_RULE = re.compile(r"^\s*when\s+(?:do|does)\b", re.I)
# The questions a list under a heading can answer: what and which, not a kind with a span of its own.
LISTS_ANSWER = ("what", "which", "other")
CHECKBOX = re.compile(r"^\[.\]\s+")
# The kinds of question whose answer is a span of the sentence (a name, a number, a duration, a place).
COST = "what it cost"  # a "how much" question about money
TEMPERATURE_ASKED = "what temperature"
TITLED_KINDS = (TEMPERATURE_ASKED, "who")  # said of a note's subject more than of other things it names
TYPED = ("who", "where", "how many", "how much", COST, "how often", "how long", "how old", TEMPERATURE_ASKED)
# Labels that name a kind of answer, as a note's "Key: value" line opens ("Duration: …", "Owner: …").
KIND_LABEL = re.compile(r"^([A-Za-z][A-Za-z ]{1,20}):\s+\S")
KIND_LABELS = {
    "how long": ("duration", "length", "time taken", "downtime"),
    COST: ("cost", "costs", "price", "total", "paid"),
    "how much": ("amount", "quantity", "size", "weight"),
    "who": (
        *("owner", "author", "lead", "contact", "maintainer", "assignee", "reviewer"),
        *("people", "attendees", "participants", "guests", "host", "hosts", "with"),
    ),
    "how often": ("frequency", "schedule", "cadence"),
    "where": ("location", "place", "venue", "address"),
    TEMPERATURE_ASKED: ("temperature", "oven", "heat"),
    "when": ("date", "year", "published", "released", "started", "start", "due", "deadline", "when"),
}
READS_THE_BYLINE = ("who", "when")  # a note's byline says who wrote or decided it, and when
# A label that names who did something, and what they did: "Author: Tobias Kell." answers "Who wrote …?".
DOER_OF = {"author": "write", "writer": "write", "owner": "own", "lead": "lead", "maintainer": "maintain"}
DOER_OF |= {"reviewer": "review", "approver": "approve", "organiser": "organise", "organizer": "organize"}
DOER_OF |= {"assignee": "assign", "editor": "edit", "creator": "create", "host": "host", "chair": "chair"}
DOER_OF |= {"director": "direct", "facilitator": "facilitate", "presenter": "present", "producer": "produce"}
DOER_OF |= {"composer": "compose", "illustrator": "illustrate", "translator": "translate", "narrator": "narrate"}
DOER_OF |= {"designer": "design", "developer": "develop", "founder": "found", "inventor": "invent"}
DOER_OF |= {"painter": "paint", "photographer": "photograph", "performer": "perform", "moderator": "moderate"}
DOER_OF |= {"coordinator": "coordinate", "manager": "manage", "sponsor": "sponsor", "builder": "build"}
ASKS_TEMPERATURE = re.compile(r"\b(?:temperature|how (?:hot|warm|cold))\b", re.I)
# "220 °C", "450 degrees", "-18 °C", and a recipe's "425F/220C" (bare letters only as such a pair: "Rack 12C" and "Seat
# 14F" are places)
_DEGREES = r"(?<![\w-])-?\d+(?:[.,]\d+)?\s?(?:°\s?[CF]\b|degrees(?: (?:C|F|Celsius|Fahrenheit)\b)?)"
_BARE_PAIR = r"(?<![\w-])-?\d{1,3}(?-i:F)\s?/\s?-?\d{1,3}(?-i:C)\b|(?<![\w-])-?\d{1,3}(?-i:C)\s?/\s?-?\d{1,3}(?-i:F)\b"
TEMPERATURE = re.compile(rf"{_BARE_PAIR}|{_DEGREES}(?:\s?/\s?{_DEGREES})?", re.I)
ASKS_TIME = re.compile(r"\bhow much (?:\w+ )?time\b", re.I)
COSTS = re.compile(r"\b(cost|costs|price|priced|pay|paid|spend|spent|charge|charged|fee|budget)\b", re.I)
MONEY = re.compile(rf"[€$£]\s?(?:{_NUMBER}){_SCALE}|\b(?:{_NUMBER}){_SCALE}\s?(?:{_CURRENCY})")
# "What did Caroline research?", "What instruments does Melanie play?", "What book is Jon reading?": the question's
# own verb, after the one it asks about, with nothing after it but where or when; a vague verb ("do", "make",
# "like") asks for a whole deed.
_ASKED_ABOUT = (
    r"(?:[A-Z][\w-]*(?:'s(?:\s+[a-z]\w*){1,2})?(?:\s+and\s+(?:(?:her|his|their)\s+[a-z]\w*|[A-Z]\w*))?"
    r"|they|he|she|we|you|(?:the|his|her|their|our)\s+[a-z]\w*(?:\s+[a-z]\w*)?)"
)
ASKED_VERB = re.compile(
    rf"^(?i:what|which)\b(?:\s+[a-z]\w*){{0,3}}?\s+(?:(?i:did|does|do|has|have|had|will|would)\s+{_ASKED_ABOUT}"
    rf"\s+([a-z]\w*)|(?i:is|are|was|were)\s+{_ASKED_ABOUT}\s+(?:(?:currently|now|still)\s+)?([a-z]\w*ing))"
    r"\b(?=\s*(?:\?|$|(?:during|at|in|on|for|with|after|before|recently|lately|last|to|from|this|"
    r"when|while|since|as|together|most)\b))"
)
# "What workshop did Caroline attend?", "What kind of flooring is Jon looking for?": the thing asked for by its name.
ASKED_THING = re.compile(
    rf"^(?i:what|which)\s+(?:(?i:kinds?|types?|sorts?)\s+of\s+)?(?:(?!(?:{_AUXILIARY})\b)[a-z][\w-]*\s+)?"
    rf"(?!(?:{_AUXILIARY})\b)([a-z][\w-]*)\s+"
    r"(?i:did|does|do|has|have|had|is|are|was|were|will|would|can)\b"
)
VAGUE_VERBS = tuple("do have get make go be say think like want feel plan use find know see mean need try".split())
# A question's words that say only what kind of answer it wants ("What year …?", "How long …?"), and verbs said of
# anything ("What rating did I give it?").
KIND_WORDS = frozenset(terms("year month day date time long often old many much temperature cost price pay paid spent"))
SAID_OF_ANYTHING = frozenset(terms(" ".join([*VAGUE_VERBS, "give"])))
# The fewest letters two stems share at their opening to be read as one word ("freez" of "freeze" and "freezer").
SAME_OPENING = 4
# What a thing stands for is asked and said in many verbs: "What does the tattoo symbolize?", "it stands for freedom";
# "means" last, as it is also said of what something is worth ("means a lot to me").
STANDS_FOR = (
    re.compile(r"\b(?:symboli[sz](?:e|es|ed|ing)|represent(?:s|ed|ing)?|st(?:ands|ood|and|anding)\s+for)\b", re.I),
    re.compile(r"\b(?:means|meant)\b", re.I),
)
ASKED_AS_STANDING_FOR = ("symbolize", "symbolise", "represent")
# Where what the verb takes ends: a clause's punctuation (not a version's or a number's point), a preposition, a
# time, a new clause ("and I", "is", "and approved").
TAKEN_ENDS = re.compile(
    r"[.,;:!?](?=\s|$)|[()\[\]–—]|\s-\s|(?<=\s)(?i:because|since|when|while|but|so|which|who|that|to|for|with|"
    rf"at|in|on|last|this|yesterday|then|after|before|from|ago|recently|lately|now|nightly|daily|weekly|twice|once|"
    rf"someday|again|too|also|together|{_AUXILIARY}|(?:and\s+)?(?:i|we|it|they|he|she|you)|and\s+[a-z]+ed)\b"
)
# A short thing goes on past these to say which one it is: "an event for LGBTQ youth", "the team that owns search".
TAKEN_GOES_ON = re.compile(r"^\s(?:for|of|with|that|who|which)\b", re.I)
# A list said after the verb: "restores, failover and DNS changes" is one thing taken.
LISTED_AFTER = re.compile(r"^[^,.;:!?]+(?:,\s[^,.;:!?]+)+,?\s(?:and|or)\s")  # up to its last item
# Who may do the verb the question asks about, said just before it: the person asked about, a pronoun, or no one
# (the verb opens the sentence: "Researching adoption agencies").
DOERS = {"i", "we", "he", "she", "they", "you", "i've", "we've", "i'm", "we're"}
BETWEEN_DOER_AND_VERB = {"also", "just", "finally", "recently", "currently", "really", "already", "still", "even"}
BETWEEN_DOER_AND_VERB |= {"been", "am", "is", "are", "was", "were", "have", "has", "had", "'m", "'ve", "always"}
NEGATIONS = {"not", "never", "didn't", "don't", "doesn't", "won't", "can't", "haven't", "hasn't", "no"}
TAKEN_OPENERS = {"a", "an", "the", "some", "my", "our", "his", "her", "their", "this", "these", "those", "all"}
TAKEN_WORDS = 8
THING_WORDS = 3  # the words a thing is named by before its name
# Words before a name that do not name it: how it is reached or joined on ("through art", "Plus pets").
NOT_NAMING = {"through", "plus", "across", "during", "without", "within", "around", "toward", "towards", "via", "per"}
NOT_NAMING |= {"despite", "like", "unlike", "among", "along", "behind", "beyond", "under", "above", "upon", "including"}
# Words that tell one of a kind from another without naming it: "the current model" names no model.
ANY_OF_A_KIND = {"current", "new", "old", "same", "next", "last", "first", "previous", "whole", "main", "best", "good"}
ANY_OF_A_KIND |= {"great", "big", "small", "little", "real", "right", "wrong", "usual", "different", "entire", "latest"}
ANY_OF_A_KIND |= {"recent", "only", "single", "full", "certain", "particular", "nice", "cool", "awesome", "amazing"}
# A turn's sentence that says at most this many words of its own beside the question's only says the question back
# ("BTW, recently I had a setback." for "What setback did Melanie face?"): the sentence after it in the turn says what
# (chosen on LoCoMo dev conv-26 and conv-30; docs/evaluation.md).
RESTATES = 2
# A question of this many words or more is not answered from a note's sentence that says only one of them.
ASKED_WORDS = 4
# "An evergreen note is an idea.", "Namespaces are pages …": a sentence saying what a thing is, its name first.
DEFINES = re.compile(r"^(?:an?\s+|the\s+)?([^,;:]{1,60}?)\s+(?:is|are|means|refers\s+to)\s+\S", re.I)
# "Who is Kevin Kelly?": who someone is, asked by their name alone.
ASKS_WHO_IT_IS = re.compile(r"^\s*[Ww]ho(?:'s|\s+is|\s+was)\s+([A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,4})\s*\??\s*$")
PROPERTY_LINE = re.compile(r"^[A-Za-z][\w -]{0,30}:(?:\s|$)")  # "author: Kevin Kelly", "topics:" with no value
# Keys that list who was there ("people: Steph Ango" on a meeting's note): they were at it.
GATHERED = frozenset({"people", "attendees", "participants", "present"})
# Keys that file a note under a kind or a subject, not a part someone takes in what it records.
SORTING_KEYS = frozenset({"categories", "category", "tags", "tag", "topics", "topic", "type", "aliases", "related"})
DESCRIPTION = re.compile(r"^[ \t]*(?:[-*][ \t]+)?description::?[ \t]+(\S.*?)[ \t]*$", re.M | re.I)
# The words a note's title must share with the question to name it: one is a word every note of a vault may say
# ("foam" in foam-docs).
TITLE_WORDS = 2
# The answer is read from the best sentence of the first two passages: the closest to the question, then the one
# saying most of a follow-up's subject, then the one of the note the question names, then the most particular, then
# the earlier passage (chosen on LoCoMo dev conv-26 and conv-30; docs/evaluation.md).
FIRST_SOURCES = 2


@dataclass(frozen=True)
class Passage:
    number: int
    text: str
    heading: str = ""  # the nearest heading of the section it was read from ("Known issue: large pages hang")
    title: str = ""  # its note's
    byline: str = ""  # its note's byline, when the passage does not hold it
    decision: str = ""  # what its note decided, when the passage does not say it
    properties: str = ""  # its note's properties ("date: 2023-09-12"), when the passage does not hold them


@dataclass(frozen=True)
class Span:
    text: str
    number: int  # the passage it was read from, for its citation
    sentence: str


@dataclass(frozen=True)
class Read:
    """A passage as the answer reads it."""

    speaker: str | None  # for a conversation turn
    said: date | None  # the date it carries
    sentences: list[str]  # its readable sentences
    prose: bool  # whether they are prose (a passage without a sentence offers its properties and links instead)
    line_of: dict[str, str]  # the plain line each sentence was read from
    heading_of: dict[str, str]  # the heading each sentence stands under, where the passage has one


def read_passage(text: str, heading: str = "") -> Read:
    """`text` as the answer reads it; `heading`: the nearest heading of the section it was read from, which its
    sentences stand under until the text opens a section of its own."""
    said = written_on(text[:60])
    speaker = None
    match = TURN.match(text)
    if match and said:
        speaker, text = match.group(1), match.group(2)
    elif said:
        text = DATE_PREFIX.sub("", text, count=1)
    prose: list[str] = []
    named: list[str] = []
    line_of: dict[str, str] = {}
    heading_of: dict[str, str] = {}
    headings = [(-1, heading)] if heading else []
    headings += _headings(text)
    at = 0
    for raw in prose_lines(text):
        # Prose lines come in order; a wrapped one is joined, so only its opening words are found as written.
        found = text.find(raw.strip()[:20], at)
        at = found if found >= 0 else at
        if NOT_AN_ANSWER.match(raw) or _mostly_tags(raw) or _only_labels(raw):
            continue
        under = next((h for offset, h in reversed(headings) if offset < at), "")
        plain = plain_line(raw)
        if len(plain) < 3 or (plain.endswith(":") and len(plain.split()) < 8):  # a heading or a label, not a statement
            continue
        label = _label(raw)
        of_line = [s for s in split_sentences(plain) if (not label or s.rstrip(".:") != label) and not _only_labels(s)]
        (named if names_only(raw) else prose).extend(of_line)
        line_of |= {sentence: plain for sentence in of_line if sentence not in line_of}
        # "- **Release date.** Adaeze proposed …": the bold label heads its line's sentences as a heading would
        stands_under = f"{under} > {label}" if under and label else under or label or ""
        heading_of |= {sentence: stands_under for sentence in of_line if stands_under and sentence not in heading_of}
    return Read(speaker, said, prose or named, bool(prose), line_of, heading_of)


def _headings(text: str) -> list[tuple[int, str]]:
    """Where each heading of the passage is, and what it says (in an outline's item too: "- ## Known issues"); not
    a level-1 heading, the note's title. A short line that heads the list after it ("Making and blind-baking the
    crust", "Available options:") heads that list's items as a heading would, and no more: after the list, the
    heading before it is the one again."""
    found: list[tuple[int, str]] = []
    code = code_block_lines(text)
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    for index, line in enumerate(lines):
        heading = None if index in code else heading_match(OUTLINE.sub("", line, count=1).strip())
        if heading and heading[0] > 1:
            found.append((offsets[index], plain_line(heading[1])))
        elif (
            index not in code
            and not (index and lines[index - 1].strip())  # a paragraph's one line
            and (over := _over_a_list(line, lines[index + 1 :]))
        ):
            before = found[-1][1] if found else ""
            found.append((offsets[index], over))
            found.append((offsets[_list_end(lines, index + 1)], before))
    return found


def _list_end(lines: list[str], start: int) -> int:
    """The index of the first line after the list that starts at or after `start` (its items, their indented lines
    and the blank lines between them)."""
    index = start
    while index < len(lines) and (
        not lines[index].strip() or lines[index][:1].isspace() or LIST_ITEM.match(lines[index])
    ):
        index += 1
    return index


def _over_a_list(line: str, after: list[str]) -> str | None:
    """What a line heading the list after it says ("Available options"), or None when it is no such line."""
    following = next((rest for rest in after if rest.strip()), "")
    return plain_line(line.strip()).rstrip(":").strip() if heads_a_list(line.rstrip("\n"), following) else None


def _label(raw: str) -> str | None:
    """The label a line opens with in bold: at most three words and no number, closed by a full stop or a colon
    ("**Release date.**", "**Owner:**"); a bold statement ("**Never deploy on Fridays.**") is none."""
    lead = BOLD_LEAD.match(raw)
    if lead is None:
        return None
    words, closed = lead.group(1).strip(), lead.group(2) or lead.group(1).strip()[-1:]
    if closed not in (".", ":") or len(words.split()) > 3 or any(ch.isdigit() for ch in words):
        return None
    return words.rstrip(".:")


def _only_labels(line: str) -> bool:
    """A line of tags only ("#postmortem #meeting") or a property the notes app keeps for itself
    ("logseq.order-list-type:: number", "id:: …"): it files or lays out the block, it says nothing."""
    return not TAG_OR_LINK_TAG.sub("", line).strip(" \t-*+") or APP_PROPERTY.match(line) is not None


def _mostly_tags(line: str) -> bool:
    """HTML more than text: a piece of a page's markup (a long HTML block cut into chunks reads as prose)."""
    return sum(len(tag) for tag in HTML_TAG.findall(line)) * 2 > len(line)


def shared_words(wanted: set[str], sentence: str, heading: str = "") -> int:
    """The question's words (`wanted`, as `terms`) a sentence says, with the heading it stands under: "Setting MTU =
    1380 … fixed it", under "Known issue: large pages hang", says how to fix large pages hanging."""
    return len(wanted & (set(terms(sentence)) | set(terms(heading))))


def _specific(sentence: str, question: str) -> int:
    """Names and numbers the sentence adds to the question: between equally close sentences, the one that says
    something particular ("called Pixel") answers, the one that only repeats the topic does not."""
    asked = {w.lower() for w in PERSON.findall(question)}
    named = (m.group(0).lower() for m in PERSON.finditer(sentence) if m.start() > 0)  # not the sentence's opener
    names = {n for n in named if n not in asked and n not in STOP}
    return len(names) + len(NUMBER_WORDS.findall(sentence))


def _people(text: str, question: str, titles: frozenset[str] = frozenset()) -> list[str]:
    """The names of people in `text` other than those the question names: no month or weekday, no name given to a
    thing ("the Lindenhof building", "a folder of Markdown notes"), none of the question's own words ("Signs off on
    …" for "Who signs off …?"); none where something is ("described in Backup and Restore Runbook", "at Lindenhof");
    the word that opens the text only when it is the one name left and the sentence's verb follows it, as a subject's
    does ("Maria signs off on the budget."): not the label of a "Key: value" line ("Compensation: one free day …"),
    nor a word that opens a sentence without being its subject ("Sprint retro plus …", "Full detail in …", "Create a
    folder …"), nor the linked note an index's entry describes (`_indexed_note`)."""
    asked = {w.lower() for w in PERSON.findall(question)} | set(terms(question))
    asked_who_did_not = ASKS_WHO_DID_NOT.search(question) is not None
    indexed = _indexed_note(text, titles)
    found = [
        m
        for m in NAMED_PERSON.finditer(text)
        if m.group(0).lower() not in asked | STOP | OPENERS | NO_ONE_IN_PARTICULAR | indexed
        and (asked_who_did_not or not SAID_NOT_TO.match(text[m.end() :]))
        and not any(m.group(0).lower() in title != m.group(0).lower() for title in titles)
        and not NUMBER_WORDS.fullmatch(m.group(0))
        and not GERUND.fullmatch(m.group(0))
        and not set(terms(m.group(0))) & asked
        and not CALENDAR & set(m.group(0).lower().split())
        and not THE_BEFORE.search(text[max(0, m.start() - 8) : m.start()])
        and not (
            NAMES_A_KIND_AFTER.search(text[max(0, m.start() - 8) : m.start()]) and _a_plural_after(text[m.end() :])
        )
        and not (
            PLACE_OR_TITLE_BEFORE.search(text[max(0, m.start() - 30) : m.start()])
            and not text[m.end() :].startswith("'s")
        )
    ]
    alone = len(found) == 1 and not KIND_LABEL.match(text) and SUBJECTS_VERB.match(text[found[0].end() :]) is not None
    opener = len(text) - len(text.lstrip())
    if (opening := OPENING_WORD.match(text)) is not None:
        opener = opening.end()  # "Daily Standup notes are …": the word after the opening one opens the sentence too
    return [m.group(0) for m in found if m.start() > opener or " " in m.group(0) or alone]


def _indexed_note(text: str, titles: frozenset[str]) -> set[str]:
    """The title of the note the line describes, when it is an index's entry: a title the passages link to, heading
    the line before a dash and what the note holds ("[[Ops Handbook]] — runbooks, postmortems, on-call and the server
    room"). Its words are the note's subject, not anyone's deed: the line names the note, not a person."""
    entry = INDEX_ENTRY.match(text)
    head = entry.group(1).lower() if entry else ""
    return {head} if head in titles else set()


def _a_plural_after(text: str) -> bool:
    """Whether `text` opens with a plural noun ("notes", "scripts"), not a word in -s that is none ("this", "plus",
    "across", "always")."""
    found = NAMES_A_KIND_BEFORE.match(text)
    word = found.group(1) if found else ""
    return bool(word) and word not in STOP and not word.endswith(("ss", "us", "ys", "is"))


def _named_in_series(sentence: str, names: list[str]) -> str | None:
    """The names as the sentence lists them, one after another ("Tobias, Priya, Maren and Jun"), or None."""
    for joint in LAST_JOINTS:
        series = f"{', '.join(names[:-1])}{joint}{names[-1]}"
        if series in sentence:
            return series
    return None


def _next_in_order(question: str, sentence: str) -> str | None:
    """For "Who is on call after Priya?", the name after hers in a list of names the sentence gives in order
    ("Current order: Tobias, Priya, Maren, Jun." → Maren); before hers for "before"."""
    asked = IN_ORDER_ASKED.search(question)
    listed = NAMES_IN_ORDER.search(sentence) if asked else None
    if asked is None or listed is None:
        return None
    names = PERSON_WORD.findall(listed.group(0))
    if asked.group(2) not in names:
        return None
    at = names.index(asked.group(2)) + (-1 if asked.group(1).lower() == "before" else 1)
    return names[at] if 0 <= at < len(names) else None


def _labelled_as(kind: str, line: str, question: str = "") -> int:
    """1 when the line's label names the kind of answer asked for ("Duration: 1 hour 53 minutes." for "how long"):
    the label stands for the question's own word; 1 more when it names the one who does what the question asks
    ("Author: Tobias Kell." for "Who wrote the postmortem?"), a word the sentence says only through its label."""
    label = KIND_LABEL.match(line)
    if label is None:
        return 0
    named = label.group(1).lower()
    doer = DOER_OF.get(named)
    asked = {_verb_root(word) for word in re.findall(r"[A-Za-z]+", question)}
    return int(named in KIND_LABELS.get(kind, ())) + int(doer is not None and _verb_root(doer) in asked)


def _byline_answers(kind: str, line: str, question: str, wanted: set[str]) -> bool:
    """Whether a line of the note's byline speaks to the question: for "who", a label naming the one who does its
    verb or saying its word ("Author:" for "Who wrote …?", "Decided by:" for "Who decided …?"), not any person's label
    ("Author: Tobias Kell." says nothing of who fixed Redis); for "when", a date's label."""
    if kind == "who":
        return _labelled_as(kind, line, question) > 1 or _label_asked(line, wanted)
    return _labelled_as(kind, line, question) > 0


def read_properties(properties: str) -> Read:
    """A note's properties as the answer reads them: each `key: value` line whole, as a statement ("description: Buy
    fewer things. Buy better ones." is one); a key with no value says nothing."""
    lines = [line.strip() for line in properties.splitlines() if KIND_LABEL.match(line.strip())]
    return Read(None, None, lines, True, {line: line for line in lines}, {})


def _property_answers(kind: str, line: str, question: str, wanted: set[str], passage: Passage) -> bool:
    """Whether a property of the passage's note speaks to the question: its key names the kind of answer asked for
    ("date:" for "when", "author:" for "Who wrote …?") or is one of the question's own words ("url:" for "What is the
    url …?"), the question speaks of this note (its title or the property's value shares a word with it: a meeting's
    "date:" does not answer "When is my dentist appointment?"), and the passage does not already say it (a turn's
    "date:" is its own stamp, which its sentences are read against)."""
    value = property_value(line)
    said = value.lower() in passage.text.lower()
    return _keyed(kind, line, question, wanted) and not said and shared_words(wanted, f"{passage.title} {value}") > 0


def _of_something_else(line: str, heading: str, note_words: set[str], read: Read, wanted: set[str]) -> bool:
    """Whether a note's line that holds an answer of the kind asked for, or a value under a key the question says,
    is of something the question does not speak of: neither the line, its heading nor anything its passage says
    (`note_words`: its note's title, its text, properties and byline) says a word of the question (`wanted`, with
    what a follow-up is about) besides the kind of answer it wants and what the line's label stands for ("Author:"
    for "wrote"). Its number, date or name answers something else: "10" out of a tart's baking tips for "How many
    calories are in a banana?", "pages: 528" of another book for "How many pages does War and Peace have?". A
    conversation's turn is not held to it: "a road trip to Woodhaven" answers "Where did Joanna travel?"."""
    label = KIND_LABEL.match(line)
    asked = wanted - KIND_WORDS - SAID_OF_ANYTHING - set(terms(label[1] if label else ""))
    if label and (doer := DOER_OF.get(label[1].lower())):
        asked = {word for word in asked if _verb_root(word) != _verb_root(doer)}  # "Author:" says who "wrote"
    if read.speaker is not None or not asked:
        # a turn is exempt (above); "What rating did I give it?" names nothing but the kind of answer: it is of what
        # it follows
        return False
    said = note_words | set(terms(f"{property_value(line) if label else line}\n{heading}"))
    return not any(_same_word(one, other) for one in asked for other in said)


def _note_words(passage: Passage) -> set[str]:
    """The words a passage says with what its note says of itself: title, properties and byline."""
    return set(terms(f"{passage.title}\n{passage.text}\n{passage.properties}\n{passage.byline}"))


def _same_word(one: str, other: str) -> bool:
    """Two stems of one word: equal, or one opens the other and both are long enough to mean it ("freez" of
    "freeze" and "freezer")."""
    return one == other or (
        min(len(one), len(other)) >= SAME_OPENING and (one.startswith(other) or other.startswith(one))
    )


def _keyed(kind: str, line: str, question: str, wanted: set[str]) -> bool:
    """Whether a `key: value` line's key names the kind of answer asked for or is one of the question's words."""
    return _labelled_as(kind, line, question) > 0 or _label_asked(line, wanted)


def property_value(line: str) -> str:
    """A `key: value` line's value ("2020" of "year: 2020")."""
    return line.split(":", 1)[1].strip()


def _label_asked(line: str, wanted: set[str]) -> bool:
    """Whether the line's label is one of the question's own words ("pages: 528" for "How many pages …?")."""
    label = KIND_LABEL.match(line)
    return label is not None and bool(set(terms(label.group(1))) & wanted)


def _count(sentence: str, question: str = "") -> str | None:
    """The number that counts what the question asks how many of ("25" in "Everyone gets 25 vacation days"), said
    with its range or factors ("35 to 40 minutes", "4 × 8 TB" for "How many TB does the NAS hold?"); else the first
    number that counts something: not a date's, a clock time's or a year's, nor one that measures a span of time or a
    size ("One week per person") or counts times ("twice in a row") when the question counts something else. A
    question counting a unit of time or size is answered only in that unit."""
    counted = _counted(question)
    measured = not counted & set(terms(MEASURES))  # the question counts things, not a unit
    numbers = [
        match
        for match in NUMBER_WORDS.finditer(sentence)
        if not _DATE_AFTER.match(sentence[match.end() :])
        and not _DATE_BEFORE.search(sentence[max(0, match.start() - DATE_BEFORE_CHARS) : match.start()])
        and not (match.group(0).isdigit() and len(match.group(0)) == 4 and 1900 <= int(match.group(0)) <= 2100)
    ]
    for match in numbers:
        after = sentence[match.end() :]
        factors = WITH_ITS_FACTORS.match(after)
        rest = after[factors.end() :] if factors else after
        if counted and measured and MEASURE_AFTER.match(rest):
            continue  # "a 30 × 40 cm tray" measures the tray
        for word in islice(re.finditer(r"[^\s,.;:!?()]+", rest), 2):  # "three kilns", "two old kilns"
            said = word.group(0).lower()
            if counted & set(terms(UNIT_SHORT.get(said, said))):
                ends = match.end() + len(after) - len(rest) + word.end()
                return sentence[match.start() : ends] if factors else match.group(0)
    if counted and not measured:
        return None  # "How many TB …": a number in no such unit counts something else
    others = set(terms(question)) - counted
    for match in numbers:
        measures = MEASURE_AFTER.match(sentence[match.end() :]) or match.group(0).lower() in TIMES_WORDS
        if counted and measures and "time" not in counted:
            continue
        if counted and _counts_one_of(sentence[match.end() :], others):
            continue  # "One 24U rack" counts the rack, not the units asked about
        return match.group(0)
    return None


def _counts_one_of(after: str, named: set[str]) -> bool:
    """Whether what a number counts is a thing among `named` (as `terms`): the word after it, or after its size
    ("One 24U rack"); not "12 attendees came", whose verb the question may say, nor "4 in 2024"."""
    words = [word.group(0) for word in islice(re.finditer(r"[^\s,.;:!?()]+", after), 2)]
    counted = words[1] if len(words) > 1 and any(ch.isdigit() for ch in words[0]) else words[0] if words else ""
    return counted.lower() not in STOP and bool(set(terms(counted)) & named)


def _counted(question: str) -> set[str]:
    """The words of what a "how many" question counts, as `terms`."""
    asked = HOW_MANY_OF.search(question)
    return set(terms(asked.group(1))) if asked else set()


def _mentions_what_is_counted(question: str, sentence: str) -> bool:
    counted = _counted(question)
    return not counted or bool(counted & set(terms(sentence)))


def _how_often(sentence: str, question: str) -> str | None:
    """The frequency the sentence gives ("quarterly", "twice a year", "every Monday"): the one beside most of the
    question's words when it gives several ("nightly backups, quarterly restore test")."""
    asked = set(terms(question))

    def beside(match: re.Match[str]) -> int:
        around = sentence[: match.start()].split()[-3:] + sentence[match.end() :].split()[:2]
        return len(asked & set(terms(" ".join(around))))

    found = list(FREQUENCY.finditer(sentence))
    return max(found, key=beside).group(0) if found else None


def _span(
    kind: str,
    question: str,
    sentence: str,
    speaker: str | None,
    said: date | None,
    line: str = "",
    titles: frozenset[str] = frozenset(),
) -> str | None:
    """The words of `sentence` that are the kind of answer the question asks for, or None; for "who", the name that
    heads the sentence's `line` ("**Herr Brandt** — … Signs off on …") counts too, and none that is part of a longer
    title the passages link to (`titles`: "Redis Outage" of [[Redis Outage Postmortem]]; [[Maren Vogt]] is hers)."""
    asked_names = {w.lower() for w in PERSON.findall(question)}
    if kind == "when":
        if len(set(days_named(sentence))) > 1:
            return sentence  # "release candidate on 16 September, release on 30 September": each date needs its words
        found = when_in(sentence, said)
        return found or (said_on(said) if said and not ASKS_WHEN_AS_A_RULE.match(question) else None)
    if kind == "who":
        if neighbour := _next_in_order(question, sentence):
            return neighbour
        head = LIST_HEAD.match(line) if line and not line.startswith(sentence) else None
        # "Herr Brandt — facilities manager" is headed by a person, "Redis Outage Postmortem — May 2024, …" and an
        # index's "[[Ops Handbook]] — runbooks, …" by a note
        by_a_person = head and PERSON.fullmatch(head.group(1)) and not _indexed_note(line, titles)
        head_names = _people(head.group(1), question, titles) if head and by_a_person else []
        names = _people(sentence, question, titles) or head_names
        if len(names) > 1 and f"{names[0]} and {names[1]}" in sentence:
            return f"{names[0]} and {names[1]}"  # "Decided by: Priya Raman and Maren Vogt.": both did it
        if len(names) > 2 and KIND_LABEL.match(sentence) and (series := _named_in_series(sentence, names)):
            return series  # "Current order: Tobias, Priya, Maren, Jun.": the rota is all of them
        if names:
            return names[0]
        return speaker if speaker and speaker.lower() not in asked_names else None
    if kind == "where":
        places = [p for p in PLACE.findall(sentence) if p.split()[-1].lower() not in asked_names]
        places = [p for p in places if not CALENDAR & set(p.lower().split())]
        return places[0] if places else None
    if kind == "how long":
        duration = DURATION.search(sentence)
        return duration.group(0) if duration else None
    if kind == COST:
        money = MONEY.search(sentence)
        return money.group(0) if money else None
    if kind == "how much":
        amount = AMOUNT.search(sentence)
        return amount.group(0) if amount else None
    if kind == "how often":
        return _how_often(sentence, question)
    if kind in ("how many", "how old"):
        return _count(sentence, question)
    if kind == TEMPERATURE_ASKED:
        temperature = TEMPERATURE.search(sentence)
        return temperature.group(0) if temperature else None
    return None


def _what_to_type(question: str, sentence: str, text: str) -> str | None:
    """The key or the command the answering sentence gives (its code read from the passage's Markdown), unless the
    question already names it; a key followed by the command to type after it is said whole ("Ctrl+Shift+P →
    "Foam: Open Daily Note""): the key alone only opens the palette."""
    asked = question.lower()
    keys = [match for match in KEYS.finditer(sentence) if match.group(0).lower() not in asked]
    commands = [code for code in _commands(text) if _says(sentence, code) and code.lower() not in asked]
    if keys and commands:
        begins = sentence.find(commands[0])
        if begins > keys[0].end() and KEY_THEN_COMMAND.match(sentence[keys[0].end() : begins]):
            ends = begins + len(commands[0])
            ends += sentence[ends : ends + 1] in CLOSING_QUOTES + "`"
            return sentence[keys[0].start() : ends]
    return next(iter([*(k.group(0) for k in keys), *commands]), None)


def _says(sentence: str, code: str) -> bool:
    """Whether the sentence says the code as written, not inside a word ("t c" is not in "right click")."""
    return re.search(rf"(?<!\w){re.escape(code)}(?!\w)", sentence) is not None


def _commands(text: str) -> Iterator[str]:
    """The passage's inline code that can be typed as it stands (TYPED_COMMAND, COMMAND_LINE), and an editor's
    command it quotes ("Run the "Foam: Show Graph" command")."""
    for match in CODE.finditer(text):
        code = match.group(1).strip()
        before = text[text.rfind("\n", 0, match.start()) + 1 : match.start()]
        if TYPED_COMMAND.match(code) or (
            COMMAND_LINE.match(code) and (OPTION.search(code) or HANDED_OVER.search(before))
        ):
            yield code
    for match in QUOTED.finditer(text):
        if PALETTE_COMMAND.match(match.group(1)):
            yield match.group(1)


def _something_to_type(
    question: str, chosen: _Candidate, as_close: Sequence[_Candidate], passages: Sequence[Passage], wanted: set[str]
) -> tuple[Passage, str, str] | None:
    """For "how do I": the passage, sentence and key or command of the sentence that gives one — the chosen sentence,
    else one of its passage as close to the question ("Type the `/Code block` command …" beside the page's
    description, "Renders a block of code …"), else a step of a numbered procedure in any passage shown whose steps
    (with the heading they stand under) say every word of the question and give a key or a command: "Click any node
    to open that note" tells how to open a note from the graph, the steps "Open the Command Palette", "Run the "Foam:
    Show Graph" command", "The graph will open …" under "Using the Graph" how to open the graph. A single sentence
    elsewhere that gives a key is not read: it is as often a key for something else ("Run Foam: Open Random Note
    from the command palette")."""
    for_it = not _for_something_else(question, chosen.sentence)
    found = _what_to_type(question, chosen.sentence, chosen.passage.text) if for_it else None
    found = found or _code_naming(chosen.sentence, chosen.passage.text)
    if found:
        return chosen.passage, chosen.sentence, found
    for other in sorted(as_close, key=lambda c: c.key, reverse=True):
        if _for_something_else(question, other.sentence):
            continue
        if found := _what_to_type(question, other.sentence, other.passage.text):
            return other.passage, other.sentence, found
    for passage in passages:
        read = read_passage(passage.text, passage.heading)
        for sentence in read.sentences:
            procedure = steps_of(sentence, passage.text)
            typed = _what_to_type(question, sentence, passage.text) if procedure else None
            said = " ".join(procedure)
            if typed and wanted and shared_words(wanted, said, read.heading_of.get(sentence, "")) == len(wanted):
                return passage, sentence, typed
    return None


def _for_something_else(question: str, sentence: str) -> bool:
    """Whether the sentence says what its key or command is for, and it is not what the question asks to do: "press
    t c (toggle cards) to review all of your cards" for "How do I make a flashcard?", "press Ctrl/Cmd + Enter inside a
    block to cycle through TODO statuses" for "How do I write a query …?"."""
    asked = ASKS_TO_DO.match(question)
    purposes = [found.group(1).lower() for found in PURPOSE.finditer(sentence)]
    purposes = [word for word in purposes if word not in STOP]
    if asked is None or not purposes:
        return False
    doing = (asked.group(1) or asked.group(2)).lower()
    kin = next((group for group in SAME_ACTION if stem(doing) in group), frozenset({stem(doing)}))
    return not any(stem(word) in kin for word in purposes)


def _code_naming(sentence: str, text: str) -> str | None:
    """The line of a code block in the passage that sets what the sentence names in code: "`OLLAMA_HOST` makes it
    listen on the LAN" and `Environment="OLLAMA_HOST=0.0.0.0:11434"` in the drop-in file above it."""
    lines = text.splitlines()
    raw = next((line for line in lines if sentence in plain_line(line)), "")
    named = {code.group(1).strip() for code in CODE.finditer(raw)}
    named = {name for name in named if len(name) >= CODE_NAME_CHARS and SETTING_NAME.fullmatch(name)}
    for index in sorted(code_block_lines(text)):
        line = lines[index].strip()
        if any(name in line for name in named) and not FENCE.match(line) and not CODE_COMMENT.match(line):
            return line
    return None


def steps_of(sentence: str, text: str) -> list[str]:
    """The steps of the numbered list `sentence` is a step of ("1. Open the Command Palette …", "2. Run …"), as
    plain text; none when it is no step, or the list has one. What is nested under a step (a bullet, a code block)
    and blank lines between steps are passed over. A step that ends by announcing a list ("You can:") is said
    without that sentence."""
    lines = text.splitlines()
    code = code_block_lines(text)
    starts = {i: found.end() for i, raw in enumerate(lines) if i not in code and (found := STEP.match(raw))}
    at = next((i for i, end in starts.items() if sentence in split_sentences(plain_line(lines[i][end:]))), None)
    if at is None:
        return []
    indent = _indent(lines[at])
    first = at
    for i in range(at - 1, -1, -1):  # back to the list's first step
        if i in code or not lines[i].strip() or _indent(lines[i]) > indent:
            continue
        if STEP.match(lines[i]) and _indent(lines[i]) == indent:
            first = i
            continue
        break
    steps = []
    for i in range(first, len(lines)):
        raw = lines[i]
        if i in code or not raw.strip() or _indent(raw) > indent:
            continue
        step = STEP.match(raw)
        if step is None or _indent(raw) != indent:
            break
        said = [s for s in split_sentences(plain_line(raw[step.end() :].strip())) if not s.endswith(":")]
        steps.append(TRAILING_STOP.sub("", " ".join(said)))
    steps = [step for step in steps if step]
    return steps if len(steps) > 1 else []


TABLE_ROW = re.compile(r"^\s*\|(.+)\|\s*$")
TABLE_RULE = re.compile(r"^[\s|:]*-[\s|:-]*$")


def _tables(text: str) -> list[list[list[str]]]:
    """The passage's tables outside its code blocks: each a list of its rows (the header first, the rule left out),
    each row its cells as plain text, empty ones kept in their place."""
    tables: list[list[list[str]]] = []
    table: list[list[str]] = []
    code = code_block_lines(text)
    for index, line in enumerate([*text.splitlines(), ""]):
        row = None if index in code else TABLE_ROW.match(line)
        if row is None:
            if table:
                tables.append(table)
            table = []
        elif not TABLE_RULE.match(line):
            table.append([plain_cell(cell) for cell in row.group(1).split("|")])
    return tables


def table_rows(text: str) -> list[list[str]]:
    """The cells of each row of the passage's tables (their rules left out), as plain text."""
    return [[cell for cell in row if cell] for table in _tables(text) for row in table]


@dataclass(frozen=True)
class Record:
    """A table's body row: as its header says it ("Units: U10 · Device: NAS · Notes: local backup target"), and
    its own cells, which are what it says of a question (every row has its header's words)."""

    said: str
    cells: str


def table_records(text: str) -> list[Record]:
    """Each body row of the passage's tables (a cell under an empty or missing header stands alone)."""
    return [
        Record(
            " · ".join(
                f"{name}: {cell}" if name else cell for name, cell in zip_longest(header, row, fillvalue="") if cell
            ),
            " · ".join(cell for cell in row if cell),
        )
        for header, *body in _tables(text)
        for row in body
    ]


@dataclass(frozen=True)
class _RowFound:
    passage: Passage
    said: str  # the row as its header says it
    shared: int  # the question's words its cells and header say
    says_a_name: bool  # whether its cells say a name the question gives ("U10")


def _closest_record(wanted: set[str], passages: Sequence[Passage], names: set[str]) -> _RowFound | None:
    """The table row of the passages whose cells say most of the question's words, counted with its header's ("What
    port does the api run on?" and "Service: api · Port: 8080"): a row whose cells say none is not the one asked
    about, as every row has its header's words."""
    scored = [
        (shared_words(wanted, record.said), own, -place, passage, record)
        for place, passage in enumerate(passages)
        for record in table_records(passage.text)
        if (own := shared_words(wanted, record.cells))
    ]
    if not scored:
        return None
    shared, _, _, passage, record = max(scored, key=lambda found: found[:3])
    return _RowFound(passage, record.said, shared, bool(names & set(terms(record.cells))))


@dataclass(frozen=True)
class _Candidate:
    # prose (or a property saying what is asked), closeness (with the heading), the follow-up's subject words it
    # says, the question's words its note's title says, the question's words it says beyond its heading, what it
    # adds, whether it says what was settled, the passage's place (negated)
    key: tuple[bool, float, int, int, int, int, bool, int]
    passage: Passage
    sentence: str
    typed: str | None  # the answer of the kind asked for it holds, if any
    row: bool = False  # a table row: it can hold such an answer, never be one
    read: Read | None = None  # its passage as read
    property: bool = False  # a property of its note, read beside the passage: its value answers


def answer_span(
    question: str,
    passages: Sequence[Passage],
    *,
    first: int = FIRST_SOURCES,
    closeness: Callable[[str], float] | None = None,
    subject: str = "",
) -> Span | None:
    """The answer's lead, read from the first `first` passages in their order; None when none of them holds a
    statement. A sentence's closeness to the question is the words they share, unless `closeness` scores it (the
    benchmark's variants, `bench/answer_spans.py`). `subject`: what a follow-up is about, whose words tell equally
    close sentences apart."""
    wanted = set(terms(question))
    about = set(terms(subject)) - wanted
    kind = "when" if asks_when(question) else asked_for(question)
    if kind == "how much":
        kind = "how long" if ASKS_TIME.search(question) else COST if COSTS.search(question) else kind
    if kind in ("what", "which", "other", "how") and ASKS_TEMPERATURE.search(question):
        kind = TEMPERATURE_ASKED
    candidates: list[_Candidate] = []
    titles = (
        frozenset(label for p in passages[:first] for label in link_labels(p.text)) if kind == "who" else frozenset()
    )
    asks_decision = kind in ("what", "which") and ASKS_WHAT_WAS_DECIDED.search(question)
    titles_served = {p.title.strip().lower() for p in passages[:first] if p.title.strip()}
    for place, passage in enumerate(passages[:first]):
        read = read_passage(passage.text, passage.heading)
        note_words = _note_words(passage)  # read once: `_of_something_else` asks it of every line
        # "everyone on the [[On-call Rotation]] should read it", in the Ops Handbook, says the question's words as the
        # name of another note found beside it, which is more the question's subject and answers "Who is on the
        # on-call rotation?" itself
        own_title = shared_words(wanted, passage.title)
        served_elsewhere = {
            title for title in link_labels(passage.text) & titles_served if shared_words(wanted, title) > own_title
        }
        rows = [" · ".join(row) for row in table_rows(passage.text)] if kind in TYPED else []
        lines = [(read, line) for line in [*read.sentences, *rows]]
        if passage.byline and kind in READS_THE_BYLINE:
            # "Author: Tobias Kell." stands under the note's title, in its first passage; this one is of the same note
            byline = read_passage(passage.byline)
            lines += [(byline, line) for line in byline.sentences if _byline_answers(kind, line, question, wanted)]
        properties = read_properties(passage.properties) if passage.properties else None
        if properties is not None:
            # "date: 2023-09-12" above a meeting note's body: a property whose key says what is asked answers as a
            # sentence would; the others ("categories: Meetings") say nothing of it and are not read
            lines += [
                (properties, line)
                for line in properties.sentences
                if _property_answers(kind, line, question, wanted, passage)
            ]
        if passage.decision and asks_decision:
            settled = read_passage(passage.decision, DECISION)  # "Celery with Redis." under its note's "## Decision"
            lines += [(settled, line) for line in settled.sentences]
        for read, line in lines:
            if line.endswith("?"):
                continue  # a question asked back is no answer
            heading = read.heading_of.get(line, "")
            label_says = _labelled_as(kind, line, question)
            # a property that says what is asked ("author: Kevin Kelly" for "Who wrote …?", "pages: 528" for "How
            # many pages …?") answers as a sentence would, among a note's other properties
            # a note made only of properties ("genre: Sci-fi" in a film's note) answers with the value its key names
            of_properties = read is properties or (not read.prose and _keyed(kind, line, question, wanted))
            stated = read.prose or label_says > 0 or ((kind in TYPED or of_properties) and _label_asked(line, wanted))
            found = _span(kind, question, line, read.speaker, read.said, read.line_of.get(line, ""), titles)
            said_of = f"{heading}\n{passage.title}" if of_properties else heading  # a property is said of its note
            if kind == "who" and (of_properties or not read.prose) and not found and not label_says:
                continue  # "episode: 145" names no one: "Who hosts the podcast … on episode 145?" is not "145"
            if (found or of_properties or label_says) and _of_something_else(
                line, heading, note_words, read, wanted | about
            ):
                continue
            score = closeness(line) if closeness else _closeness(wanted, line, said_of, served_elsewhere) + label_says
            beyond = shared_words(wanted - set(terms(heading)), line)
            # equally close, a sentence of the note the question names answers first: "Author: Tobias Kell." in the
            # Redis Outage Postmortem before "Maren owns it, as recorded in the postmortem's action items." in a retro
            titled = shared_words(wanted, passage.title)
            titled = titled if titled >= TITLE_WORDS else 0
            key = (
                stated,
                score,
                shared_words(about, line, heading),
                titled,
                beyond,
                _specific(line, question),
                SETTLED.match(line) is not None,  # "Agreed: release on 30 September." beside what was proposed
                -place,
            )
            candidates.append(
                _Candidate(key, passage, line, found, row=line not in read.line_of, read=read, property=of_properties)
            )
    if kind in ("what", "other") and not closeness and (described := _described(question, passages[:first])):
        return described
    if kind == "who" and not closeness and (who := _who_it_is(question, passages)):
        return who
    if asks_decision and not closeness and (decided := _decided(question, candidates, wanted)):
        return decided
    if kind in LISTS_ANSWER and not closeness and (column := _column_asked_for(question, passages[:first], wanted)):
        return column
    said_lines = [c for c in candidates if not c.row]
    names = names_asked(question)
    if any(names & set(terms(c.passage.title)) for c in said_lines):
        # "What caused the TLS outage?" beside a note titled "TLS Misconfiguration Postmortem": a note whose title
        # names another thing of the kind asked about ("Redis Outage Postmortem") and whose passage never says TLS
        # speaks of another outage, however many of the question's other words it shares
        said_lines = [c for c in said_lines if not _of_another(c, names, wanted)]
    if not said_lines:
        # a passage of tables only: its row that says the question answers ("What does FOAM_SLUG produce?")
        row = _closest_record(wanted, passages[:first], names) if kind in LISTS_ANSWER and not closeness else None
        return Span(row.said, row.passage.number, row.said) if row and row.shared >= RECORD_WORDS else None
    chosen = max(said_lines, key=lambda c: c.key)
    if _points_elsewhere(chosen):
        # "See Logseq Sync Encryption." shares the question's words and says nothing of it: any sentence that shares
        # one and says something answers first; the pointer is still quoted below.
        saying = [c for c in said_lines if c.key[1] > 0 and not _points_elsewhere(c)]
        chosen = max(saying, key=lambda c: c.key, default=chosen)
    if kind not in (*TYPED, "when") and not closeness:
        chosen = _exception_naming_it(chosen, said_lines, wanted)
    if chosen.typed is None and kind in TYPED and not closeness:
        # The closest sentence holds no answer of the kind asked for: an as close one (one shared word less at
        # most, one at least) that holds one answers ("Bake at 220 °C for 22 to 25 minutes" beside "Start at 18:00
        # the day before"). A sentence sharing no word with the question is not read for it: its number or name
        # answers something else.
        floor = max(1.0, chosen.key[1] - 1)
        typed = [
            c
            for c in candidates
            if c.typed is not None and c.key[0] == chosen.key[0] and _close_in_its_note(c, wanted, kind) >= floor
        ]
        chosen = max(typed, key=lambda c: c.key, default=chosen)
    if kind == "how many" and chosen.typed in VAGUE_COUNTS and not closeness:
        # "several devices" beside "Syncs up to 10 graphs": a count said exactly answers first
        floor = max(1.0, chosen.key[1] - 1)
        exact = [c for c in candidates if c.typed not in (None, *VAGUE_COUNTS) and c.key[1] >= floor]
        chosen = max(exact, key=lambda c: c.key, default=chosen)
    if chosen.typed is None and kind == "who" and not closeness and (doer := _done_next(question, chosen, titles)):
        return doer
    if kind in LISTS_ANSWER and not closeness and (section := _section_list(question, passages[:first], wanted)):
        passage, listed, named = section
        if chosen.key[1] <= named:  # no sentence says more of the question than the heading names
            return Span(listed, passage.number, listed)
    if kind in LISTS_ANSWER and not closeness and (row := _closest_record(wanted, passages[:first], names)):
        # a row says more of it than any sentence, or says the name asked about where no sentence does ("What is in
        # rack unit U10?" and "Units: U10 · Device: NAS", beside "the rack units affected" in a procedure); a
        # sentence's note names it too by its title or its properties ("author: Kevin Kelly" above his advice)
        unnamed = row.says_a_name and not any(names & set(terms(_named_by(c))) for c in said_lines)
        if row.shared >= RECORD_WORDS and (row.shared > chosen.key[1] or unnamed):
            return Span(row.said, row.passage.number, row.said)
    asked_word = SHORTCUT_WORD.search(question)
    if asked_word and asked_word.group(0).lower() not in chosen.sentence.lower():
        # "the keyboard shortcut to open the daily note": the line that says "Shortcut: Alt+D", not the one that
        # opens the command palette to run it.
        labelled = [
            c
            for c in candidates
            if not c.row
            and c.key[1] >= 1
            and asked_word.group(0).lower() in c.sentence.lower()
            and KEYS.search(c.sentence)
        ]
        chosen = max(labelled, key=lambda c: c.key, default=chosen)
    # of the same passage: an as close sentence elsewhere gives a key for something else ("Ctrl+O to open a file")
    as_close = [c for c in said_lines if c.key[:2] == chosen.key[:2] and c.passage is chosen.passage]
    if ASKS_WHAT_TO_TYPE.search(question) and (
        to_type := _something_to_type(question, chosen, as_close, passages, wanted)
    ):
        passage, sentence, command = to_type
        procedure = steps_of(sentence, passage.text)
        return Span(f"{_said(procedure)}." if procedure else command, passage.number, sentence)
    if ASKS_WHAT_TO_TYPE.search(question) and _for_something_else(question, chosen.sentence):
        # "To review all cards, … press t c" does something else than "make a flashcard": an as close sentence of
        # its passage that does not say so answers first ("right click the bullet to "Make a Flashcard"")
        others = sorted(as_close, key=lambda c: c.key, reverse=True)
        chosen = next((c for c in others if not _for_something_else(question, c.sentence)), chosen)
    keyed = chosen.property or (
        chosen.read is not None and not chosen.read.prose and KIND_LABEL.match(chosen.sentence) is not None
    )
    said_back = set(terms(property_value(chosen.sentence))) if keyed else set()
    if said_back and not closeness and said_back <= wanted:
        # "aliases: BOTW" for "Which note has the alias BOTW?" says the question back: the note that has it answers,
        # unless it is a template ("tags: to-read" in the Book Template is no book still to read)
        title = chosen.passage.title.strip()
        names_it = title and not set(terms(title)) <= wanted and not _of_a_template(chosen.passage)
        if kind in ("what", "which") and names_it:
            return Span(title, chosen.passage.number, chosen.sentence)
        return None
    if chosen.property and (kind == "who" or not chosen.typed):
        # "year: 2020" answers "What year …?" with "2020"; "author: Steph Ango, Kevin Kelly" names both
        return Span(property_value(chosen.sentence), chosen.passage.number, chosen.sentence)
    if chosen.typed:
        return Span(chosen.typed, chosen.passage.number, chosen.sentence)
    if chosen.key[1] == 0 and not closeness:
        return None  # the closest sentence shares no word with the question: it is quoted below, not led with
    if not closeness and _barely_about(chosen, wanted):
        return None  # "Please make the app stable …" for a long question about crash reports: quoted, not led with
    if kind == "how many" and not closeness and not _mentions_what_is_counted(question, chosen.sentence):
        # No sentence counts it, and this one does not speak of it ("How many eggs are in the focaccia?" and "Pairs
        # well with the leftover focaccia."): quoted below, not led with; "lots of people showed up" still answers.
        return None
    whole = with_its_items(chosen.sentence, chosen.passage.text)
    if whole == chosen.sentence and not closeness:
        if kind in ("what", "which") and (
            taken := what_the_verb_takes(question, chosen.sentence) or the_thing_named(question, chosen.sentence)
        ):
            return Span(taken, chosen.passage.number, chosen.sentence)
        whole = with_what_follows(chosen.sentence, chosen.read, wanted, kind)
    return Span(whole, chosen.passage.number, whole)


def _of_a_template(passage: Passage) -> bool:
    """A template's properties stand for the notes made from it, not for a note of their own."""
    return "template" in passage.title.lower() or any(
        TEMPLATE_PLACEHOLDER.search(text) for text in (passage.properties, passage.text)
    )


def _named_by(candidate: _Candidate) -> str:
    """What a sentence says with what its note says of itself: its title and properties."""
    return f"{candidate.sentence}\n{candidate.passage.title}\n{candidate.passage.properties}"


def names_asked(question: str) -> set[str]:
    """The words a question names something by, past its first, as `terms`: "tls" of "What caused the TLS outage?"."""
    return set(terms(" ".join(ASKED_NAME.findall(question.strip()))))


def _of_another(candidate: _Candidate, names: set[str], wanted: set[str]) -> bool:
    """Whether a note's passage is of another thing of the kind asked about: its title says the question's other
    words and neither it nor its passage says the name the question gives."""
    if candidate.read is None or candidate.read.speaker is not None:
        return False
    passage = candidate.passage
    if names & set(terms(f"{passage.title} {passage.heading} {passage.text} {passage.properties}")):
        return False  # "author: Kevin Kelly" above his advice names him
    return shared_words(wanted - names, passage.title) > 0


def _closeness(wanted: set[str], sentence: str, heading: str, served_elsewhere: set[str]) -> int:
    """The question's words the sentence says with its heading; none when it says them only as the name of another
    note found beside it ("everyone on the [[On-call Rotation]] should read it", not "Tobias maintains the [[Ops
    Handbook]]" for "Who maintains the Ops Handbook?")."""
    shared = shared_words(wanted, sentence, heading)
    if shared and served_elsewhere and not shared_words(wanted, without_names(sentence, served_elsewhere), heading):
        return 0
    return shared


def without_names(sentence: str, names: set[str]) -> str:
    """The sentence less the names it says (as written, in any case)."""
    if not names:
        return sentence
    pattern = "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))
    return re.sub(rf"(?i)\b(?:{pattern})\b", " ", sentence)


def _described(question: str, passages: Sequence[Passage]) -> Span | None:
    """For "What is a cloze?", a note's own definition of it, ahead of any sentence that only mentions it: the
    description a note titled so gives of itself (Logseq's `description::`, a front matter `description:`), else a
    sentence that says what it is ("An evergreen note is an idea."), else the opening sentence of a note titled so
    when that sentence opens with its name ("Block anchors let you link to a specific paragraph …")."""
    thing = thing_asked_about(question)
    if thing is None:
        return None
    names = names_of_thing(thing)
    openings: list[Span] = []
    for passage in passages:
        titled = titled_as(passage.title, names)
        if titled and (described := DESCRIPTION.search(passage.text)) and (said := plain_line(described.group(1))):
            return Span(said, passage.number, said)
        read = read_passage(passage.text, passage.heading)
        if read.speaker is not None or not read.prose:
            continue
        if defining := _defining(read, names):
            return Span(defining, passage.number, defining)
        opening = read.sentences[0]
        at_the_top = not passage.heading or set(terms(passage.heading)) == set(terms(passage.title))
        if titled and at_the_top and any(set(terms(opening)[: len(named)]) == named for named in names):
            openings.append(Span(opening, passage.number, opening))
    return openings[0] if openings else None


def _defining(read: Read, names: list[set[str]]) -> str | None:
    """The passage's sentence that says what the thing named is, its name first ("An evergreen note is an idea.")."""
    for sentence in read.sentences:
        if (defined := DEFINES.match(sentence)) and set(terms(defined.group(1))) in names:
            return sentence
    return None


def _who_it_is(question: str, passages: Sequence[Passage]) -> Span | None:
    """For "Who is Kevin Kelly?", a sentence that says who they are, else the parts the notes' properties give
    them, as a person's page lists them: "Kevin Kelly: author of Out of Control; guest of Well Made 145 Kevin
    Kelly." (`author: Kevin Kelly` in one note, `guests: Kevin Kelly` in another), beside what their own note files
    them under."""
    asked = ASKS_WHO_IT_IS.match(question)
    if asked is None:
        return None
    name = asked.group(1)
    names = [set(terms(name))]
    parts: list[str] = []
    cited: int | None = None
    for passage in passages:
        read = read_passage(passage.text, passage.heading)
        if read.speaker is None and (defining := _defining(read, names)):
            return Span(defining, passage.number, defining)
        own = titled_as(passage.title, names)
        for line in read_properties(_properties_of(passage)).sentences:
            key, value = (part.strip() for part in line.split(":", 1))
            values = [v.strip() for v in value.split(",")]
            if own and key.lower() == "type":
                parts.insert(0, value)  # "type: Authors" on their own page says what they are
            elif not own and key.lower() not in SORTING_KEYS and any(set(terms(v)) in names for v in values):
                role = key.lower()
                parts.append(f"at {passage.title}" if role in GATHERED else f"{_one_of(role)} of {passage.title}")
            else:
                continue
            cited = passage.number if cited is None else cited
    if cited is None or not parts:
        return None
    said = f"{name}: {'; '.join(dict.fromkeys(parts))}"
    return Span(said, cited, said)


def _properties_of(passage: Passage) -> str:
    """The note's properties: beside the passage, or the passage itself when the note is only its properties (a
    book's note: `author: Kevin Kelly`, `pages: 528`)."""
    lines = [line for line in passage.text.splitlines() if line.strip()]
    if lines and all(PROPERTY_LINE.match(line) for line in lines):
        return f"{passage.properties}\n{passage.text}"
    return passage.properties


def _one_of(key: str) -> str:
    """A key that names many ("guests") as one of them ("guest")."""
    return key[:-1] if len(key) > 3 and key.endswith("s") and not key.endswith("ss") else key


def _close_in_its_note(candidate: _Candidate, wanted: set[str], kind: str) -> float:
    """For a temperature or a person, a note's sentence's closeness with its note's title: "Bake at 220 °C for 22 to 25
    minutes" in Focaccia al Rosmarino says the focaccia's temperature, as a note says few; "Current order: Tobias,
    Priya, Maren, Jun." in On-call Rotation says who is on it. A time or an amount is said of many
    things of a note ("How long does the focaccia keep?" is not its bake time); a conversation's turn is titled by its
    speaker, and a table's row by a note of many rows: theirs is their closeness alone."""
    if kind not in TITLED_KINDS or candidate.row or candidate.read is None or candidate.read.speaker is not None:
        return candidate.key[1]
    heading = candidate.read.heading_of.get(candidate.sentence, "")
    return shared_words(wanted, candidate.sentence, f"{heading}\n{candidate.passage.title}")


def _decided(question: str, candidates: Sequence[_Candidate], wanted: set[str]) -> Span | None:
    """For "Which job queue did we choose?", a sentence under a note's decision heading ("## Decision" over "Celery
    with Redis."): of the passage whose note's title, then whose decision, says most of the question besides its
    asking for a decision, the decision that says most of it ("Kubernetes: explicitly not …" among a meeting's
    decisions for "What did we decide about Kubernetes?"), else, when it lists them, all of them ("What did we decide
    in the architecture sync?"), else the first; None when no decision says any of the question and no note it heads
    is titled by it."""
    asking = {term for found in ASKS_WHAT_WAS_DECIDED.finditer(question) for term in terms(found.group(0))}
    asked = wanted - asking
    sections: dict[int, list[_Candidate]] = {}  # by the passage's place
    for candidate in candidates:
        heading = candidate.read.heading_of.get(candidate.sentence, "") if candidate.read else ""
        if not candidate.row and DECISION_HEADING.fullmatch(heading):
            sections.setdefault(candidate.key[-1], []).append(candidate)
    scored = []
    for said in sections.values():
        passage, place = said[0].passage, said[0].key[-1]
        # each decision opens a line of its own ("- Kubernetes: explicitly not in v1."); the sentences after it in
        # its paragraph give its reasons
        openers = [c for c in said if c.read is None or c.read.line_of.get(c.sentence, "").startswith(c.sentence)]
        listed = [c.sentence for c in openers if _listed(c)]
        if len(listed) > 1:  # a list of decisions: a line after it ("Next sync: 23 April.") is none of them
            last = max(i for i, c in enumerate(openers) if c.sentence in listed)
            openers = openers[: last + 1]
        closest = max(openers or said, key=lambda c: (shared_words(asked, c.sentence), -said.index(c)))
        titled, stated = shared_words(asked, passage.title), shared_words(asked, closest.sentence)
        if not stated and len(listed) > 1:
            heading = closest.read.heading_of.get(closest.sentence, DECISION) if closest.read else DECISION
            heading = "Decisions" if heading == DECISION else heading  # a carried decision's, which lists several
            whole = f"{heading}: {_said([sentence.rstrip('.') for sentence in listed])}."
            closest = replace(closest, sentence=whole)
        if titled or stated:
            scored.append(((titled, stated, place), closest))
    if not scored:
        return None
    chosen = max(scored, key=lambda found: found[0])[1]
    return Span(chosen.sentence, chosen.passage.number, chosen.sentence)


def _listed(candidate: _Candidate) -> bool:
    """Whether the sentence is an item of a list in its passage, or in the decision its note carries ("- Task-line
    convention: accepted.")."""
    line = candidate.read.line_of.get(candidate.sentence, "") if candidate.read else ""
    lines = f"{candidate.passage.text}\n{candidate.passage.decision}".splitlines()
    return bool(line) and line in (plain_line(raw) for raw in lines if OUTLINE.match(raw))


def _column_asked_for(question: str, passages: Sequence[Passage], wanted: set[str]) -> Span | None:
    """For "What tomato varieties are we growing?", the cells of a table's column headed by the things asked for
    ("Variety" over Sungold, San Marzano, …), in the passage whose note's title says most of the question's other
    words; None when the question asks for one thing (its row or sentence answers), when no such note has a column
    headed so, or when the table's cells alone say another of its words ("Which varieties are cherry tomatoes?": the
    rows that say cherry answer, not all of them)."""
    asked = ASKED_THING.match(question)
    word = asked.group(1).lower() if asked else ""
    name = stem(word)
    if not word.endswith("s") or word.endswith("ss") or name == word:
        return None
    others = wanted - {name}
    titled = sorted(
        ((shared_words(others, f"{p.title}\n{p.heading}"), -place, p) for place, p in enumerate(passages)),
        key=lambda found: found[:2],
        reverse=True,
    )
    for shared, _, passage in titled:
        if not shared:
            break
        outside = "\n".join(line for line in passage.text.splitlines() if not TABLE_ROW.match(line))
        said_elsewhere = set(terms(f"{passage.title}\n{passage.heading}\n{outside}"))
        for header, *body in _tables(passage.text):
            if (others - said_elsewhere) & {term for row in body for cell in row for term in terms(cell)}:
                continue  # a word only some rows say picks those rows
            for column, cell in enumerate(header):
                cells = [row[column] for row in body if column < len(row) and row[column]]
                if terms(cell) == [name] and len(cells) > 1:
                    listed = f"{cell}: {_said(cells)}."
                    return Span(listed, passage.number, listed)
    return None


def _done_next(question: str, chosen: _Candidate, titles: frozenset[str]) -> Span | None:
    """For "Who vetoed the cold brew setup?", when the closest sentence names no one ("We briefly considered a
    cold-brew setup for the office kitchen."), the sentence right after it that says the question's verb of someone:
    "Adaeze vetoed it." → Adaeze."""
    asked = WHO_DID.match(question)
    after = _sentence_after(chosen.read, chosen.sentence)
    if asked is None or not after:
        return None
    root = _verb_root(asked.group(1))
    if not any(_verb_root(word) == root for word in re.findall(r"[A-Za-z']+", after)):
        return None
    names = _people(after, question, titles)
    return Span(names[0], chosen.passage.number, after) if names else None


def _barely_about(chosen: _Candidate, wanted: set[str]) -> bool:
    """Whether a note's sentence says too little of a question that says much to be its answer: one word of
    `ASKED_WORDS` or more ("Is there a way to keep the app from sending info about my crashes back to the
    developers?" and "Please make the app stable …"). A conversation's turn is not held to it: a turn that answers
    says little of the question's words ("When did …?" and "Last Saturday!")."""
    speaks = chosen.read is not None and chosen.read.speaker is not None
    return not speaks and len(wanted) >= ASKED_WORDS and chosen.key[1] <= 1


def _exception_naming_it(chosen: _Candidate, said_lines: Sequence[_Candidate], wanted: set[str]) -> _Candidate:
    """For "Do I need a permit to swap a disk in the server rack?", beside the rule "Any work inside the rack that
    involves power: swapping a PSU, …", the exception its passage makes of what the question asks about: "Not needed
    for: reseating a network cable, reading labels, swapping a disk in a hot-swap bay." An exception as close to the
    question that names, in what it leaves out, a word of the question the rule and its heading do not say answers
    before the rule; else the rule."""
    heading = chosen.read.heading_of.get(chosen.sentence, "") if chosen.read else ""
    said = set(terms(f"{chosen.sentence}\n{heading}"))
    for other in sorted(said_lines, key=lambda c: c.key, reverse=True):
        as_close = other.key[:2] == chosen.key[:2]
        if other is chosen or other.passage is not chosen.passage or not as_close:
            continue
        leaves_out = EXCEPTION.search(other.sentence)
        if leaves_out and (wanted & set(terms(other.sentence[leaves_out.end() :]))) - said:
            return other
    return chosen


def _points_elsewhere(candidate: _Candidate) -> bool:
    return points_elsewhere(candidate.sentence, candidate.passage.text)


def points_elsewhere(sentence: str, text: str) -> bool:
    """Whether the sentence only says where something is written: it opens as a pointer ("See …", "Full detail in
    …"), or ends by saying it is in a note its passage's `text` links to ("Settings and queue layout are in [[Celery
    Notes]].", "… written up in [[TLS Misconfiguration Postmortem]].")."""
    if POINTS_ELSEWHERE.search(sentence):
        return True
    ending = ENDS_IN_A_NAMED_PLACE.search(sentence)
    return ending is not None and ending.group(1).strip().lower() in link_labels(text)


def link_labels(text: str) -> set[str]:
    """What the passage's links say, as a reader sees them: a wikilink's alias or target, a Markdown link's label."""
    labels = {(found.group(3) or found.group(1)).strip().lower() for found in WIKILINK.finditer(text)}
    return labels | {found.group("label").strip().lower() for found in INLINE_LINK.finditer(text)}


def with_what_follows(sentence: str, read: Read | None, wanted: set[str], kind: str) -> str:
    """A turn's sentence that only says the question back (`RESTATES`), with the sentence after it in the turn,
    which says what ("BTW, recently I had a setback. Last month I got hurt and had to take a break from pottery.").
    Not for a yes-or-no question, which such a sentence answers ("Yes, I adopted a dog."), nor with a question asked
    back. Not in a note: there a sentence with the question's words is most often its answer ("You don't need to
    agree with the idea for it to become an evergreen note.") and the next one says something else."""
    if read is None or read.speaker is None or kind == "yes-no" or len(set(terms(sentence)) - wanted) > RESTATES:
        return sentence
    after = _sentence_after(read, sentence)
    if not after or after.endswith("?") or read.line_of.get(after) != read.line_of.get(sentence):
        return sentence
    return f"{sentence} {after}"


def _sentence_after(read: Read | None, sentence: str) -> str:
    """The sentence its passage says right after `sentence`, or "" when it says none."""
    if read is None or sentence not in read.sentences:
        return ""
    at = read.sentences.index(sentence)
    return read.sentences[at + 1] if at + 1 < len(read.sentences) else ""


def what_the_verb_takes(question: str, sentence: str) -> str | None:
    """What the sentence says the question's verb takes: "What did Caroline research?" and "Researching adoption
    agencies — it's been a dream" → "adoption agencies"; None when the question asks with no verb of its own, the
    sentence does not say it of the one asked about (someone else did it, or nobody did: "Jun did not deploy the
    hotfix"), or what follows it is no thing (a pronoun, an auxiliary, only a time)."""
    asked = ASKED_VERB.match(question)
    verb = asked and (asked.group(1) or asked.group(2))
    if not verb or _verb_root(verb) in _roots(VAGUE_VERBS):
        return None
    root = _verb_root(verb)
    asked_about = {w for w in re.findall(r"[a-z']+", question.lower()) if w not in STOP}
    standing_for = root in _roots(ASKED_AS_STANDING_FOR)
    if standing_for:
        said = [found for pattern in STANDS_FOR for found in pattern.finditer(sentence)]
    else:
        said = [w for w in re.finditer(r"[A-Za-z']+", sentence) if _verb_root(w.group(0)) == root]
    for found in said:
        if not standing_for and not _done_by(sentence[: found.start()], found.group(0), asked_about):
            continue
        return _taken(sentence[found.end() :])
    return None


def _done_by(before: str, verb: str, asked_about: set[str]) -> bool:
    """Whether the words `before` a verb make it the deed of the one asked about: their name (or another word the
    question says of them: "the meeting template includes") or a pronoun just before it, adverbs and auxiliaries
    between; or nothing at all when the verb opens the sentence as a gerund or in the past."""
    words = [w.lower() for w in re.findall(r"[A-Za-z']+", before)]
    while words and words[-1] in BETWEEN_DOER_AND_VERB:
        words.pop()
    if not words:  # "Researching adoption agencies", "Took a short trip": not "Research shows that …"
        return verb.lower().endswith(("ing", "ed")) or verb.lower() in PAST_ROOT
    if words[-1] in NEGATIONS or (len(words) > 1 and words[-2] in NEGATIONS):
        return False
    if words[-1] in ("and", "or"):  # "I'm expanding the studio and offering workshops": the clause's doer
        clause = [w.lower() for w in re.findall(r"[A-Za-z']+", re.split(r"[,.;:!?]", before)[-1])]
        return any(w in DOERS or w in asked_about for w in clause) and not NEGATIONS & set(clause)
    return words[-1] in DOERS or words[-1] in asked_about or words[-1].removesuffix("'s") in asked_about


def _taken(rest: str) -> str | None:
    """What a verb takes, read from the words after it (`what_the_verb_takes`)."""
    if (title := QUOTED.match(rest.strip())) is not None:
        return title.group(0)  # a title in quotes is all of it: 'reading "The Lean Startup" and hoping'
    listed = LISTED_AFTER.match(rest)
    end = TAKEN_ENDS.search(rest, listed.end() if listed else 0)
    if end and len(rest[: end.start()].split()) <= 2 and TAKEN_GOES_ON.match(rest[end.start() - 1 :]):
        end = TAKEN_ENDS.search(rest, end.end())  # "an event" is no answer: "an event for LGBTQ youth"
    taken = (rest[: end.start()] if end else rest).strip()
    words = taken.lower().split()
    if not 1 <= len(words) <= TAKEN_WORDS or (words[0] in STOP and words[0] not in TAKEN_OPENERS):
        return None
    content = [w for w in re.findall(r"[a-z']+", taken.lower()) if w not in STOP]
    return taken if content and not all(TIME_EXPRESSION.fullmatch(w) for w in content) else None


def the_thing_named(question: str, sentence: str) -> str | None:
    """The thing the question asks for by its name, with the words the sentence names it by: "What workshop did
    Caroline attend?" and "I went to an LGBTQ+ counseling workshop" → "LGBTQ+ counseling workshop"; None when the
    sentence says the name bare, only with the question's own words or with words any of its kind could have ("the
    current model")."""
    asked = ASKED_THING.match(question)
    if asked is None:
        return None
    name = stem(asked.group(1).lower())
    words = list(re.finditer(r"[\w+'-]+(?:\.[\w+'-]+)*", sentence))
    at = next((i for i, w in enumerate(words) if stem(w.group(0).lower()) == name), None)
    if at is None:
        return None
    asked_words = {stem(w) for w in re.findall(r"[\w+'-]+", question.lower())}
    start = at
    while start > 0 and at - start < THING_WORDS and _names_a_thing(words[start - 1].group(0), asked_words):
        start -= 1
    named_by = {stem(w.group(0).lower()) for w in words[start:at]} - {stem(w) for w in ANY_OF_A_KIND}
    end = words[at].end()
    numbered = at + 1 < len(words) and any(c.isdigit() for c in words[at + 1].group(0))
    numbered = numbered and not sentence[end : words[at + 1].start()].strip()
    if numbered:
        end = words[at + 1].end()  # "port 6379", "room 4B": the number names it
    return sentence[words[start].start() : end] if named_by or numbered else None


def _names_a_thing(word: str, asked_words: set[str]) -> bool:
    """Whether a word before a thing's name can say which one it is: not a stop word, a preposition, a word of the
    question (its subject: "Redis uses port 6379" for "What port does Redis use?") nor a verb in -s or -ed ("likes
    indie folk music")."""
    lowered = word.lower()
    return (
        lowered not in STOP | NOT_NAMING
        and stem(lowered) not in asked_words
        and not (lowered.endswith(("s", "ed")) and not lowered.endswith("ss") and not word[:1].isupper())
    )


@cache
def _roots(verbs: tuple[str, ...]) -> frozenset[str]:
    """The roots of a fixed list of verbs (`_verb_root`), read once."""
    return frozenset(_verb_root(verb) for verb in verbs)


def _verb_root(word: str) -> str:
    """A verb's form read back to a shared root: research/researching, paint/painted, make/makes/made, study/studies,
    plan/planned."""
    word = word.lower()
    word = PAST_ROOT.get(word) or PARTICIPLE_ROOT.get(word) or word
    for ending in ("ing", "ied", "ies", "ed", "es", "s"):
        if word.endswith(ending) and len(word) - len(ending) >= 2 and not word.endswith("ss"):
            word = word[: -len(ending)] + ("y" if ending in ("ied", "ies") else "")
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]
    return word.rstrip("e")


def with_its_items(sentence: str, text: str) -> str:
    """A sentence that announces a list ("Only three alerts page at night:") with the list's items after it: the
    items one level below it (or, after a paragraph, the list that follows), at most `LISTED` of them; one that
    announces a code block (or says it gives an example: "add the :shortcuts section, for example, then refresh"),
    with its first lines."""
    announces = sentence.endswith(":")
    if not announces and not GIVES_AN_EXAMPLE.search(sentence):
        return sentence
    lines = text.splitlines()
    start = next((i for i, raw in enumerate(lines) if sentence in plain_line(raw)), None)
    items = _said(_items_after(lines, start)) if start is not None and announces else ""
    if items:
        return f"{sentence} {items}."
    code = _code_after(lines, start) if start is not None else []
    return f"{sentence} {'; '.join(f'`{line}`' for line in code)}" if code else sentence


def _code_after(lines: list[str], start: int) -> list[str]:
    """The first lines of the code block right after line `start` ("Find all notes that have a due property:" over
    `foam search --property due`), at most `CODE_LINES`, its comments left out: what the sentence announces."""
    inside = code_block_lines("\n".join(lines))
    after = next((i for i in range(start + 1, len(lines)) if lines[i].strip()), None)
    if after is None or after not in inside:
        return []
    code: list[str] = []
    for index in range(after, len(lines)):
        line = lines[index].strip()
        if index not in inside or (code and not line):
            break
        if line and not FENCE.match(line) and not CODE_COMMENT.match(line) and "`" not in line:
            code.append(line)
    return code[:CODE_LINES]


def _items_after(lines: list[str], start: int) -> list[str]:
    """The items of the list right after line `start`, one level below it when it is a list item itself."""
    announcing = lines[start]
    below = _indent(announcing) if OUTLINE.match(announcing) else -1
    level: int | None = None
    items: list[str] = []
    for raw in lines[start + 1 :]:
        if not raw.strip():
            if items:
                break
            continue
        item = OUTLINE.match(raw)
        if item is None or _indent(raw) <= below or (level is not None and _indent(raw) < level):
            break
        level = _indent(raw) if level is None else level
        if _indent(raw) == level:
            items.append(plain_line(CHECKBOX.sub("", raw[item.end() :].strip())).rstrip("."))
    return items


def _said(items: list[str]) -> str:
    """Items as the answer says them: joined with "; ", at most `LISTED` of them."""
    more = "; …" if len(items) > LISTED else ""
    return f"{'; '.join(items[:LISTED])}{more}" if items else ""


def _section_list(question: str, passages: Sequence[Passage], wanted: set[str]) -> tuple[Passage, str, int] | None:
    """A list under a heading the question names whole ("What are the ingredients for focaccia?" and "## Ingredients"
    over a list), or under a heading, or a line heading the list, that names the kind of thing the question asks for,
    in a passage that says the question's other words ("What options are there for foam.preview.embedNoteType?" and
    "Available options:" under the setting's example): the passage, the heading with its items, and how many of the
    question's words the heading says. A passage that opens its section stands under the section's heading
    (`Passage.heading`), which its text lacks."""
    asked = ASKED_THING.match(question)
    thing = stem(asked.group(1).lower()) if asked else ""  # "option" of "What options are there for …?"
    for passage in passages:
        lines = ([f"## {passage.heading}"] if passage.heading else []) + passage.text.splitlines()
        code = code_block_lines(passage.text)
        says_the_rest = wanted - {thing} <= set(terms(f"{passage.title}\n{passage.heading}\n{passage.text}"))
        for index, raw in enumerate(lines):
            in_code = index - bool(passage.heading) in code
            heading = None if in_code else heading_match(OUTLINE.sub("", raw, count=1).strip())
            opens_a_paragraph = not in_code and not (index and lines[index - 1].strip())
            title = heading[1] if heading else _over_a_list(raw, lines[index + 1 :]) if opens_a_paragraph else None
            named = set(terms(title or ""))
            answers = named <= wanted or (thing in named and says_the_rest)
            items = _items_after(lines, index) if named and answers else []
            if title and len(items) > 1:  # one item is no list: its sentence answers, if any does
                return passage, f"{plain_line(title)}: {_said(items)}.", len(named & wanted)
    return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))
