"""The significance classifier is fitted on dev messages with folds, never worse on questions than the prototypes it
replaces, and stored per embedding model."""

from __future__ import annotations

import numpy as np
import pytest

from apps.evaluation.significance_fit import Group, calibrate_significance, write_classifier
from apps.retrieval.significance import Classifier, read_classifiers, unit_vector

CASUAL = ["thanks a lot", "haha nice", "see you tomorrow", "good night all", "lol ok", "cheers", "have fun"]
pytestmark = pytest.mark.django_db  # the model in use is read from the database

QUESTIONS = ["oven temperature for bread", "vpn setup steps", "recipe for pesto", "release checklist", "tax forms"]


def test_the_fit_chooses_on_held_out_groups_and_the_stored_classifier_tells_small_talk_from_lookups(tmp_path):
    groups = [
        Group("one", QUESTIONS[:3], CASUAL[:4]),
        Group("two", [*QUESTIONS[3:], "database backup schedule"], [*CASUAL[4:], "good morning"]),
    ]
    figures = calibrate_significance(groups)

    chosen, reference = figures["chosen"], figures["prototypes"]
    assert set(chosen["held_out"]) == {"one", "two"}  # every group was held out once
    lost = sum(r["questions_silenced"] for r in chosen["held_out"].values())
    assert lost <= sum(r["questions_silenced"] for r in reference["held_out"].values())

    path = tmp_path / "significance.json"
    write_classifier("local/test-model", figures["entry"], path)
    write_classifier("local/other-model", figures["entry"], path)  # one file, one entry per model
    stored = read_classifiers(path)
    assert set(stored) == {"local/test-model", "local/other-model"}
    entry = stored["local/test-model"]
    classifier = Classifier(np.array(entry["weights"]), entry["bias"], entry["cut"])
    assert classifier.casual_probability(unit_vector("thanks a lot")) >= classifier.cut
    assert classifier.casual_probability(unit_vector("recipe for pesto")) < classifier.cut
