"""The significance check (answer path, step 1): is this message a request for knowledge, or a casual moment
("thanks!", "haha nice", "brb") for which the right amount of context is zero?

Model-free and cheap: question and lookup signals first, then a logistic classifier over the message's embedding,
fitted for the embedding model in use on the project's dev messages (`manage.py evaluate calibrate --significance`,
weights in `data/significance.json`). A model without fitted weights falls back to the nearest of two small sets of
prototype phrases. When unsure it lets the message through: a casual message that gets context costs a little
noise, a real question that gets none costs the answer.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from apps.llm.embeddings import current_model, embed_query, embed_texts

WH_WORDS = {"what", "when", "where", "who", "whom", "whose", "which", "why", "how"}
REQUESTS = {"tell", "explain", "show", "find", "list", "describe", "summarize", "summarise", "compare", "remind"}
REQUESTS |= {"any", "anything"}
# Reworking verbs with an object of their own ask for that object ("repeat the install steps"); with only a
# pronoun they ask to rework the earlier answer (`REWORK`).
REQUESTS |= {"repeat", "redo", "translate", "rewrite", "rephrase", "reword"}
AUXILIARIES = {"did", "does", "do", "is", "are", "was", "were", "can", "could", "should", "would", "will"}
AUXILIARIES |= {"has", "have", "had"}
# An auxiliary opens a question when a subject follows it ("have we decided", "is the backup running"); "have a
# great weekend" and "would love to" are left to the classifier, as is "give" ("give me a minute").
SUBJECTS = {"i", "we", "you", "he", "she", "it", "they", "there", "the", "this", "that", "these", "those", "my"}
SUBJECTS |= {"our", "your", "his", "her", "their", "its", "anyone", "anybody", "someone", "somebody", "any"}
# Without a fitted classifier, any of these openers counts as a question (the prototypes cannot tell them apart).
QUESTION_WORDS = WH_WORDS | REQUESTS | AUXILIARIES | {"give"}
# An exact token someone looks up: an acronym, a setting name, a code, a path, an error string.
LOOKUP_TOKEN = re.compile(
    r"(?<![\w])(?:[A-Z][A-Z0-9]{1,}(?:[-_][A-Z0-9]+)*|\w+[_.:/]\w+[\w.:/-]*|[A-Za-z]+-\d+|\w+-\w+:)(?![\w])"
)
# A request addressed to the chat about its own reply ("make that shorter", "can you put it in a table?",
# "translate this into Dutch"): a reworking verb whose object is only a pronoun for the earlier answer, followed by
# nothing or by how to rework it. It asks for no new knowledge; a conversation's follow-up check sees it first.
_POLITE = r"(?:(?:can|could|would|will)\s+you\s+|please\s+)*"
_REWORK_VERBS = (
    r"say|repeat|rewrite|rephrase|reword|redo|try|make|translate|explain|summari[sz]e|shorten|expand|simplify|put|"
    r"turn|format|write|give|read"
)
_HOW = (
    r"again|please|in|into|as|to|for|like|without|with|down|up|more|less|but|so|once|one|a|an|shorter|longer|"
    r"simpler|differently|[a-z]+er|[a-z]+ly"
)
REWORK = re.compile(rf"^{_POLITE}(?:{_REWORK_VERBS})(?:\s+(?:me|us))?\s+(?:that|it|this)(?:\s+(?:{_HOW})\b.*)?$")
REWORKS_AN_ANSWER = "asks to rework an earlier answer"
# A question about the assistant itself ("are you a bot?", "who are you?"), not about the notes; "are you supposed
# to…" and "are you able to…" are the generic "you" of a how-to question.
ABOUT_THE_CHAT = re.compile(
    r"^(?:(?:are|were)\s+you\b(?!\s+(?:supposed|able|allowed|meant|required|expected)\b).*"
    r"|(?:who|what)\s+are\s+you|what\s+can\s+you\s+do"
    r"|how\s+(?:are|have)\s+you(?:\s+(?:doing|been|today|feeling))*|how\s+do\s+you\s+do"
    r"|how(?:'s|\s+is)\s+(?:it|everything|your\s+day|life)(?:\s+going)?|what'?s\s+up)$"
)
# A greeting before a courtesy question ("hello, how are you?") greets; what follows decides.
GREETING = re.compile(r"^(?:hi|hello|hey|hiya|good\s+(?:morning|afternoon|evening))(?:\s+there)?[\s,!.]+")
ASKS_ABOUT_THE_CHAT = "asks about the assistant itself"
CASUAL_ACRONYMS = {"OK", "LOL", "LMAO", "BRB", "TTYL", "GN", "GM", "NP", "NVM", "TY", "THX", "AFK", "OMG", "IMO"}

CASUAL = [
    "thanks",
    "thank you very much",
    "hello",
    "hi everyone",
    "good morning",
    "good night",
    "bye, see you later",
    "haha that is funny",
    "lol",
    "great job, well done",
    "congratulations",
    "wow, amazing",
    "cool",
    "ok",
    "sounds good",
    "I agree",
    "me too",
    "sorry, my mistake",
    "never mind",
    "wait a moment",
    "I'm back",
    "I'm so tired today",
    "have a nice weekend",
    "time for a coffee break",
    "lunch break?",
    "really?",
    "we did it, finally!",
    "oh no",
    "that was fun",
    "you're awesome",
    "let me think",
    "I'll check and get back",
    "got it, understood",
    "nice",
    "yes",
    "no",
    "hmm",
    "welcome to the team",
    "enjoy your holiday",
]
INFORMATIVE = [
    "what did we decide about the database",
    "when is the release planned",
    "how do I configure the server",
    "where are the notes about the trip",
    "who is responsible for the backups",
    "why did the service fail",
    "tell me about the recipe",
    "explain the architecture",
    "which option did we choose",
    "what happened at the meeting",
    "the error message when connecting",
    "settings for the search index",
    "the plan for next week",
    "what temperature for baking bread",
    "details of the incident",
    "what does she like to do",
    "what did he say about his family",
    "the project deadline and budget",
]


@dataclass(frozen=True)
class Significance:
    significant: bool
    reason: str


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


CLASSIFIERS = Path(__file__).resolve().parent / "data" / "significance.json"


@dataclass(frozen=True)
class Classifier:
    """P(casual) = logistic(weights · unit embedding + bias); casual from `cut` up."""

    weights: np.ndarray
    bias: float
    cut: float

    def casual_probability(self, vector: np.ndarray) -> float:
        return float(1.0 / (1.0 + np.exp(-(vector @ self.weights + self.bias))))


def read_classifiers(path: Path = CLASSIFIERS) -> dict[str, dict]:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


@functools.cache
def classifier_for(model: str) -> Classifier | None:
    entry = read_classifiers().get(model)
    if entry is None:
        return None
    return Classifier(np.array(entry["weights"], dtype=np.float32), float(entry["bias"]), float(entry["cut"]))


def unit_vector(text: str, model: str | None = None) -> np.ndarray:
    vector = np.array(embed_query(text, model=model), dtype=np.float32)
    return vector / np.linalg.norm(vector)


@functools.cache
def _prototypes(model: str) -> tuple[np.ndarray, np.ndarray]:
    vectors = np.array(embed_texts(CASUAL + INFORMATIVE, model=model), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors[: len(CASUAL)], vectors[len(CASUAL) :]


# Casual only when a message is close to the casual phrases in absolute terms too: lookups phrased as statements
# ("bike brakes squeaking") sit far from both sets (cosine ≤ 0.23 on the dev checks), chatter close to casual
# (≥ 0.30 on chatter-dev); anything in between is let through.
CASUAL_FLOOR = 0.27


def lookup_tokens(text: str) -> list[str]:
    """The exact tokens a message looks up (acronyms, setting names, codes, paths), casual acronyms left out."""
    return [t for t in LOOKUP_TOKEN.findall(text) if t.upper() not in CASUAL_ACRONYMS]


def by_rule(message: str, *, fitted: bool = True) -> Significance | None:
    """The decision made before any embedding: no words, a lookup, a message that opens like a question; else None
    (`fitted`: a classifier decides the rest, so only unambiguous openers count)."""
    text = message.strip()
    words = _words(text)
    if not words:
        return Significance(False, "no words (emoji or punctuation only)")
    addressed = addressed_to_the_chat(text)
    if addressed:
        return Significance(False, addressed)
    lookups = lookup_tokens(text)
    if lookups:
        return Significance(True, f"looks up {lookups[0]!r}")
    if len(words) >= 3 and (_opens_a_question(words, fitted) or (text.endswith("?") and len(words) >= 4)):
        return Significance(True, "a question")
    return None


def addressed_to_the_chat(message: str) -> str:
    """Why `message` is about the chat itself rather than the notes (a rework of its reply, a question about the
    assistant), or "" when it is not."""
    text = GREETING.sub("", re.sub(r"[\s?!.]+$", "", message.strip().lower()))
    if REWORK.match(text):
        return REWORKS_AN_ANSWER
    if ABOUT_THE_CHAT.match(text):
        return ASKS_ABOUT_THE_CHAT
    return ""


def _opens_a_question(words: list[str], fitted: bool) -> bool:
    if not fitted:
        return words[0] in QUESTION_WORDS
    return words[0] in WH_WORDS | REQUESTS or (words[0] in AUXILIARIES and words[1] in SUBJECTS)


def significance(message: str) -> Significance:
    """Decide whether a message should be searched at all."""
    model = current_model()  # once: a switch completing meanwhile must not compare two models' vectors
    classifier = classifier_for(model)
    ruled = by_rule(message, fitted=classifier is not None)
    if ruled is not None:
        return ruled
    query = unit_vector(message.strip(), model)
    if classifier is not None:
        casual = classifier.casual_probability(query)
        if casual >= classifier.cut:
            return Significance(False, f"casual (classifier: {casual:.2f})")
        return Significance(True, f"informative (classifier: casual {casual:.2f})")
    casual_score, informative_score = prototype_scores(query[None, :], model)
    if casual_score[0] >= CASUAL_FLOOR and casual_score[0] > informative_score[0]:
        return Significance(
            False, f"casual (closest to casual phrases: {casual_score[0]:.2f} vs {informative_score[0]:.2f})"
        )
    return Significance(True, f"informative ({informative_score[0]:.2f} vs casual {casual_score[0]:.2f})")


def prototype_scores(vectors: np.ndarray, model: str) -> tuple[np.ndarray, np.ndarray]:
    """Per unit vector (rows), its cosine with the closest casual and the closest informative prototype."""
    casual_set, informative_set = _prototypes(model)
    rows = np.asarray(vectors, dtype=np.float32)
    return (rows @ casual_set.T).max(axis=1), (rows @ informative_set.T).max(axis=1)


def prototype_casual(vectors: np.ndarray, model: str) -> np.ndarray:
    """Per unit vector, whether the prototypes alone call it casual (the check without a fitted classifier)."""
    casual, informative = prototype_scores(vectors, model)
    return (casual >= CASUAL_FLOOR) & (casual > informative)
