"""Benchmark: the who-did-it abstention replayed over one recorded product run, its settings varied. Input: the JSONL
that `manage.py evaluate locomo --pipeline research --answers PATH` writes (each question's sources, the turns the
narrow lookup found, the answer given, its F1) and the LoCoMo file it ran on (who speaks in each conversation, as the
graph records it). Every question is answered again from the same sources and lookup turns by the product's rule
(`apps.chat.services.attribution`) with its settings varied: how many of the other speakers' lookup turns are read
(`READ`), the claim a turn of someone else must carry (`MIN_CLAIM`), the claim such a lookup turn must carry
(`WITNESS_CLAIM`) and the share of it the person asked about must carry to be answered (`KEEP_SHARE`); the first point
is the product's. The rule for choosing, as the acceptance reads (category 5 abstained on at least half, answerable
questions on at most 2%): the fewest answerable abstentions with category 5 abstained on at least half of the choosing
conversations, then the most category-5 abstention, then the fewest turns read; the choice is then read on the
others. The product looks nothing up for a claim of fewer words than `WITNESS_CLAIM`: a run recorded at a higher
setting replays the lower ones without those lookup turns. The recorded answers quote the dataset: keep them out of the
repository.
Usage: .venv/bin/python bench/attribution.py /tmp/answers.jsonl --data dev.json [--choose conv-26 conv-30] [--json P]
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

ADVERSARIAL_LINE = 0.5


def main() -> None:
    import django

    django.setup()
    from apps.chat.services import attribution
    from apps.chat.services.answering import misattribution
    from apps.evaluation import locomo
    from apps.evaluation.answer_scores import answer_f1, readable
    from apps.evaluation.answerer import offline_answer
    from apps.evaluation.runner import recorded_sources

    parser = argparse.ArgumentParser()
    parser.add_argument("answers", type=Path)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--choose", nargs="+", default=["conv-26", "conv-30"])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.answers.read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r["pipeline"] == "research"]
    speakers = {c.sample_id: sorted({t.speaker for t in c.turns}) for c in locomo.load(args.data)}

    def replay(row: dict[str, Any]) -> tuple[bool, float]:
        """Whether the rule abstains on the row, and the F1 of what is then said (0 for an abstention)."""
        sources = recorded_sources(row)
        found = [attribution.Witness(path=w["path"], text=w["text"]) for w in row["found"]]
        if not sources or misattribution(row["question"], sources, speakers[row["conversation"]], found):
            return True, 0.0
        if row["answer"] is not None:  # answered then and now: the answer is the same
            return False, row["f1"] or 0.0
        given = offline_answer(row["question"], sources)
        return False, answer_f1(readable(given), row["gold"], row["category"]) if row["category"] != 5 else 0.0

    product = (attribution.READ, attribution.MIN_CLAIM, attribution.WITNESS_CLAIM, attribution.KEEP_SHARE)
    points = [product] + [
        (read, claim, witness, share)
        for claim in (1, 2, 3)
        for read in (0, 2, 3, 5)
        for witness in (2, 3, 4, 5)
        for share in (0.75, 1.0)
        if (read, claim, witness, share) != product and witness >= claim and (read or witness == claim)
    ]
    figures: dict[str, dict[str, Any]] = {}
    for read, claim, witness, share in points:
        attribution.READ, attribution.MIN_CLAIM, attribution.KEEP_SHARE = read, claim, share
        attribution.WITNESS_CLAIM = witness
        tally: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        for row in rows:
            abstained, f1 = replay(row)
            part = "choose" if row["conversation"] in args.choose else "measure"
            if row["category"] == 5:
                tally[part]["category5"].append(float(abstained))
            else:
                tally[part]["answerable"].append(float(abstained))
                tally[part]["f1"].append(f1)
        name = f"lookup turns {read}, claim {claim}, lookup claim {witness}, share {share}"
        figures[name] = {
            "read": read,
            "claim": claim,
            "lookup_claim": witness,
            "share": share,
            **{
                part: {
                    "category5_abstained": round(sum(t["category5"]) / len(t["category5"]), 4),
                    "answerable_abstained": round(sum(t["answerable"]) / len(t["answerable"]), 4),
                    "wrong_abstentions": int(sum(t["answerable"])),
                    "f1": round(sum(t["f1"]) / len(t["f1"]), 4),
                }
                for part, t in tally.items()
            },
        }
        c = figures[name]["choose"]
        print(f"{name:58s} choose {c['category5_abstained']:.3f} / {c['answerable_abstained']:.3f} f1 {c['f1']:.4f}")
    within = [n for n in figures if figures[n]["choose"]["category5_abstained"] >= ADVERSARIAL_LINE] or list(figures)
    chosen = max(
        within,
        key=lambda n: (
            -figures[n]["choose"]["wrong_abstentions"],
            figures[n]["choose"]["category5_abstained"],
            -figures[n]["read"],
        ),
    )
    for name in (next(iter(figures)), chosen):
        c, m = figures[name]["choose"], figures[name]["measure"]
        print(f"{name}: chosen on {args.choose} {c}; measured on the others {m}")
    if args.json:
        args.json.write_text(json.dumps({"chosen": chosen, "points": figures}, indent=1) + "\n")


if __name__ == "__main__":
    main()
