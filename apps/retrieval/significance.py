"""The significance check (answer path, step 1): is this message a request for knowledge, or a casual moment
("thanks!", "haha nice", "brb") for which the right amount of context is zero?

Model-free and cheap: question and lookup signals first, then the nearest of two small sets of prototype
phrases (written for this project) in the embedding space. When unsure it lets the message through: a casual
message that gets context costs a little noise, a real question that gets none costs the answer.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np

from apps.llm.embeddings import current_model, embed_query, embed_texts

QUESTION_WORDS = {
    "what",
    "when",
    "where",
    "who",
    "whom",
    "whose",
    "which",
    "why",
    "how",
    "did",
    "does",
    "do",
    "is",
    "are",
    "was",
    "were",
    "can",
    "could",
    "should",
    "would",
    "will",
    "has",
    "have",
    "had",
    "tell",
    "explain",
    "show",
    "find",
    "list",
    "describe",
    "summarize",
    "summarise",
    "compare",
    "remind",
    "give",
    "any",
    "anything",
}
# An exact token someone looks up: an acronym, a setting name, a code, a path, an error string.
LOOKUP_TOKEN = re.compile(
    r"(?<![\w])(?:[A-Z][A-Z0-9]{1,}(?:[-_][A-Z0-9]+)*|\w+[_.:/]\w+[\w.:/-]*|[A-Za-z]+-\d+|\w+-\w+:)(?![\w])"
)
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


@functools.cache
def _prototypes(model: str) -> tuple[np.ndarray, np.ndarray]:
    vectors = np.array(embed_texts(CASUAL + INFORMATIVE, model=model), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors[: len(CASUAL)], vectors[len(CASUAL) :]


# Casual only when a message is close to the casual phrases in absolute terms too: lookups phrased as statements
# ("bike brakes squeaking") sit far from both sets (cosine ≤ 0.23 on the dev checks), chatter close to casual
# (≥ 0.30 on chatter-dev); anything in between is let through.
CASUAL_FLOOR = 0.27


def significance(message: str, *, margin: float = 0.0) -> Significance:
    """Decide whether a message should be searched at all."""
    text = message.strip()
    words = _words(text)
    if not words:
        return Significance(False, "no words (emoji or punctuation only)")
    lookups = [t for t in LOOKUP_TOKEN.findall(text) if t.upper() not in CASUAL_ACRONYMS]
    if lookups:
        return Significance(True, f"looks up {lookups[0]!r}")
    if len(words) >= 3 and (words[0] in QUESTION_WORDS or (text.endswith("?") and len(words) >= 4)):
        return Significance(True, "a question")
    model = current_model()  # once: a switch completing meanwhile must not compare two models' vectors
    casual, informative = _prototypes(model)
    query = np.array(embed_query(text, model=model), dtype=np.float32)
    query /= np.linalg.norm(query)
    casual_score, informative_score = float((casual @ query).max()), float((informative @ query).max())
    if casual_score >= CASUAL_FLOOR and casual_score > informative_score + margin:
        return Significance(False, f"casual (closest to casual phrases: {casual_score:.2f} vs {informative_score:.2f})")
    return Significance(True, f"informative ({informative_score:.2f} vs casual {casual_score:.2f})")
