"""Benchmark: how the offline answerer picks the sentence it answers from, replayed over one recorded product run.

Input: the JSONL that `manage.py evaluate locomo --pipeline research --answers PATH` writes (each question's
sources, the answer given, its F1). Every answerable question the run answered is answered again from the same
sources by the product's span rules with one thing varied: how many passages the answer is read from (1–4) and how
a sentence's closeness to the question is scored — the words it shares with the question (today), the cosine of
their embeddings (the active model), or the shared words plus `w` × the cosine; with `--alignment` also the token
alignment (each question word piece's best cosine to the sentence's, contextual token vectors of the local model,
averaged), alone or added the same way. Abstentions stay as recorded (the
who-did-it rule reads the same sources either way). The rule: the best mean F1 (categories 1–4) on the choosing
conversations; the choice is then read on the others. The recorded answers quote the dataset: keep them out of the
repository.
Usage: .venv/bin/python bench/answer_spans.py /tmp/answers.jsonl [--choose conv-26 conv-30] [--json PATH]
"""

# isort: skip_file
from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "desirepath.settings.dev")


def main() -> None:
    import django

    django.setup()
    import numpy as np

    from apps.chat.services import spans
    from apps.chat.services.answering import answer_lines, passages_of
    from apps.core.text import STOP, terms
    from apps.evaluation.answer_scores import answer_f1, readable
    from apps.evaluation.runner import recorded_sources
    from apps.llm.embeddings import embed_texts

    parser = argparse.ArgumentParser()
    parser.add_argument("answers", type=Path)
    parser.add_argument("--choose", nargs="+", default=["conv-26", "conv-30"])
    parser.add_argument("--json", type=Path)
    parser.add_argument("--alignment", action="store_true", help="also score closeness by token alignment")
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.answers.read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r["pipeline"] == "research" and r["category"] != 5]

    vectors: dict[str, Any] = {}

    def embed(texts: list[str]) -> None:
        missing = sorted({t for t in texts if t not in vectors})
        for start in range(0, len(missing), 256):
            batch = missing[start : start + 256]
            for text, vector in zip(batch, embed_texts(batch), strict=True):
                vectors[text] = np.asarray(vector, dtype=np.float32)

    def cosine(a: str, b: str) -> float:
        va, vb = vectors[a], vectors[b]
        return float(va @ vb / (np.linalg.norm(va) * np.linalg.norm(vb) or 1.0))

    tokens: dict[str, Any] = {}

    def embed_tokens(texts: list[str]) -> None:
        """Each text's contextual token vectors (normalised), its content word pieces only: no [CLS]/[SEP], no
        punctuation, no stop words."""
        from apps.llm.embeddings import _local_model, current_model

        encoder = _local_model(current_model())
        missing = sorted({t for t in texts if t not in tokens})
        for start in range(0, len(missing), 128):
            batch = missing[start : start + 128]
            encoded = encoder.encode(batch, output_value="token_embeddings", show_progress_bar=False)
            for text, matrix in zip(batch, encoded, strict=True):
                m = np.asarray(matrix, dtype=np.float32)[1:-1]
                ids = encoder.tokenizer(text, truncation=True, max_length=encoder.max_seq_length)["input_ids"][1:-1]
                pieces = encoder.tokenizer.convert_ids_to_tokens(ids[: len(m)])
                keep = [i for i, t in enumerate(pieces) if t.isalnum() and t not in STOP]
                m = m[keep] if keep else m
                tokens[text] = m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-9)

    def alignment(question: str, line: str) -> float:
        """How well the question's word pieces each find a close one in the line: the mean of their best cosines."""
        q, s_ = tokens[question], tokens[line]
        if not len(q) or not len(s_):
            return 0.0
        return float((q @ s_.T).max(axis=1).mean())

    def span(
        question: str, passages: list[spans.Passage], first: int, weight: float | None, mode: str = "cosine"
    ) -> spans.Span | None:
        """The product's span with the passages read and the closeness varied (weight None: shared words only, as
        the product; 0: the cosine (or token alignment) only; else shared words + weight × it)."""
        wanted = set(terms(question))
        near = cosine if mode == "cosine" else alignment

        def closeness(line: str) -> float:
            shared = float(len(wanted & set(terms(line))))
            return (
                shared
                if weight is None
                else near(question, line)
                if weight == 0
                else shared + weight * near(question, line)
            )

        return spans.answer_span(question, passages, first=first, closeness=closeness)

    sentences = [r["question"] for r in rows]
    for r in rows:
        for s in r["sources"]:
            sentences += spans.read_passage(s["text"], s.get("heading", "")).sentences
    embed(sentences)
    if args.alignment:
        embed_tokens(sentences)

    def answer(row: dict[str, Any], first: int, weight: float | None, mode: str) -> str | None:
        if row["answer"] is None:
            return None
        sources = recorded_sources(row)
        passages = passages_of(sources)
        found = span(row["question"], passages, first, weight, mode)
        return found.text if found else "".join(answer_lines(row["question"], sources))

    weights = (None, 0.0, 0.25, 0.5, 1.0, 2.0, 4.0)
    points = [(first, weight, "cosine") for first in (1, 2, 3, 4) for weight in weights]
    if args.alignment:
        points += [(first, weight, "alignment") for first in (1, 2, 3, 4) for weight in weights if weight is not None]
    figures: dict[str, dict[str, Any]] = {}
    for first, weight, mode in points:
        by_part: dict[str, list[float]] = defaultdict(list)
        by_category: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        for row in rows:
            given = answer(row, first, weight, mode)
            f1 = 0.0 if given is None else answer_f1(readable(given), row["gold"], row["category"])
            part = "choose" if row["conversation"] in args.choose else "measure"
            by_part[part].append(f1)
            by_category[part][str(row["category"])].append(f1)
        closeness = "shared words" if weight is None else mode if weight == 0 else f"words + {weight} {mode}"
        name = f"passages {first}, {closeness}"
        figures[name] = {
            part: {
                "f1": round(float(np.mean(values)), 4),
                "by_category": {c: round(float(np.mean(v)), 4) for c, v in sorted(by_category[part].items())},
            }
            for part, values in by_part.items()
        }
        print(f"{name:40s} choose {figures[name]['choose']['f1']:.4f}  measure {figures[name]['measure']['f1']:.4f}")
    recorded = {
        part: round(float(np.mean([r["f1"] or 0.0 for r in rows if r["conversation"] in conversations])), 4)
        for part, conversations in (
            ("choose", set(args.choose)),
            ("measure", {r["conversation"] for r in rows} - set(args.choose)),
        )
    }
    chosen = max(figures, key=lambda n: figures[n]["choose"]["f1"])
    print("recorded", recorded, "| today's rule replayed", figures["passages 2, shared words"])
    print("chosen on", args.choose, ":", chosen, figures[chosen])
    if args.json:
        args.json.write_text(json.dumps({"recorded": recorded, "chosen": chosen, "points": figures}, indent=1) + "\n")


if __name__ == "__main__":
    main()
