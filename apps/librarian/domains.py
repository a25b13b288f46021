"""The vocabulary of bridging domains: broad fields a note can share with notes on unrelated topics. The offline
Librarian picks from this fixed list; a reasoning model reuses it (and the vault's own additions) and may add at
most one new field per note, so the vocabulary grows slowly and collisions stay possible."""

from __future__ import annotations

import functools

import numpy as np

from apps.llm.embeddings import embed_texts

# Each broad field with the words that describe it: the description is what gets embedded.
FIELDS = {
    "software architecture": "software systems, services, components, design decisions, trade-offs",
    "databases and search": "databases, queries, indexes, SQL, full-text and vector search, storage",
    "operations and reliability": "servers, deployments, monitoring, uptime, on-call, backups, queues",
    "incident response": "outages, incidents, postmortems, root cause, recovery",
    "security and access control": "security, permissions, authentication, access, secrets, safety rules",
    "performance and scaling": "speed, latency, throughput, load, scaling, optimisation",
    "developer tooling": "editors, command line, build tools, version control, developer workflow",
    "machine learning": "models, embeddings, training, language models, prediction",
    "data and measurement": "data, metrics, statistics, evaluation, measurement",
    "team process": "team rituals, meetings, retrospectives, conventions, roles, responsibilities",
    "decision making": "choosing between options, criteria, decisions, trade-offs",
    "project planning": "plans, deadlines, milestones, priorities, roadmaps",
    "communication": "talking, writing messages, feedback, explaining to people",
    "documentation and knowledge management": "notes, documentation, wikis, knowledge bases, linking ideas",
    "design and usability": "user interfaces, usability, design of everyday things, user experience",
    "product strategy": "product direction, users, market, features, positioning",
    "cooking and food": "recipes, cooking, meals, ingredients, kitchen",
    "baking and fermentation": "bread, dough, yeast, sourdough, baking, fermentation",
    "gardening and plants": "plants, herbs, soil, watering, garden, balcony",
    "travel and logistics": "trips, travel, trains, packing, itineraries, venues",
    "cycling and transport": "bicycles, cycling, bike repair, commuting, transport",
    "music practice": "instruments, guitar, practice routines, music, scales",
    "language learning": "learning a foreign language, vocabulary, grammar, lessons",
    "reading and literature": "books, reading, authors, literature, book notes",
    "learning and habits": "learning, habits, routines, practice, self-improvement",
    "health and fitness": "health, exercise, sleep, fitness, wellbeing",
    "personal finance": "money, budgets, expenses, saving, costs",
    "home and repairs": "home, repairs, tools, fixing things, household",
    "hardware and electronics": "hardware, racks, power supplies, cables, electronics",
    "events and gatherings": "events, offsites, parties, gatherings, celebrations",
    "family and relationships": "family, friends, relationships, people in one's life",
    "nature and environment": "nature, weather, forests, environment, outdoors",
    "history": "history, past events, historical context",
    "psychology": "psychology, behaviour, motivation, how people think",
    "philosophy": "philosophy, ideas, ethics, meaning",
    "economics": "economics, markets, incentives, prices",
    "law and compliance": "law, regulations, compliance, permits, contracts",
    "art and craft": "art, crafts, making things by hand, drawing",
    "cities and architecture": "cities, buildings, urban planning, paths, public space",
    "writing": "writing, prose, essays, drafts, style",
}
BROAD_FIELDS = list(FIELDS)
MAX_DOMAINS = 3


@functools.cache
def _field_vectors(model: str) -> np.ndarray:
    vectors = np.array(embed_texts([f"{name}: {words}" for name, words in FIELDS.items()], model=model))
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def nearest_fields(vector: np.ndarray, *, model: str, margin: float = 0.08) -> list[str]:
    """The closest broad field, plus up to two more within `margin` of it."""
    query = vector / (np.linalg.norm(vector) or 1.0)
    scores = _field_vectors(model) @ query
    order = np.argsort(-scores)
    best = float(scores[order[0]])
    return [BROAD_FIELDS[i] for i in order[:MAX_DOMAINS] if float(scores[i]) >= best - margin]
