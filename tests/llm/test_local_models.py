"""The registry of local embedding models: named models only, weights checked against their pinned sha256."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from apps.llm import local_models
from apps.llm.embeddings import embed_texts, model_dimensions
from apps.llm.local_models import REGISTRY, ModelConfigurationError, WeightsMismatchError, local_model, verify_weights
from apps.llm.model_install import PIECED, model_unpack

MINILM = "local/all-MiniLM-L6-v2"
MPNET = "local/all-mpnet-base-v2"


def test_an_unknown_local_name_is_a_configuration_error_not_minilm():
    with pytest.raises(ModelConfigurationError, match="no local embedding model is called 'local/nomic-tiny'"):
        embed_texts(["hello"], model="local/nomic-tiny")


def test_each_registered_model_states_its_size_and_reads_its_own_vectors():
    assert {name: (m.dimensions, m.max_tokens) for name, m in REGISTRY.items()} == {
        "all-MiniLM-L6-v2": (384, 256),
        "all-mpnet-base-v2": (768, 384),
    }
    assert [len(v) for v in embed_texts(["a note about tea"], model=MINILM)] == [384]
    assert model_dimensions(MPNET) == 768


def test_the_installed_weights_match_their_pins():
    for model in REGISTRY.values():
        assert verify_weights(model) == model.weights_path()


@pytest.fixture
def minilm_copy(tmp_path, monkeypatch) -> tuple[str, Path]:
    """MiniLM's folder copied to tmp and registered under a name of its own."""
    folder = tmp_path / "copied-minilm"
    shutil.copytree(local_model(MINILM).folder(), folder)
    copy = dataclasses.replace(REGISTRY["all-MiniLM-L6-v2"], name="copied-minilm", folder=lambda: folder)
    monkeypatch.setitem(REGISTRY, copy.name, copy)
    return copy.setting, folder / "model.safetensors"


def test_a_tampered_weights_file_is_refused_with_its_name(minilm_copy):
    name, weights = minilm_copy
    with weights.open("r+b") as handle:
        handle.seek(4096)
        byte = handle.read(1)
        handle.seek(4096)
        handle.write(bytes([byte[0] ^ 0x01]))
    with pytest.raises(WeightsMismatchError, match=f"weights file {weights} has sha256"):
        embed_texts(["hello"], model=name)


def test_weights_changed_after_a_check_are_hashed_again(minilm_copy):
    name, weights = minilm_copy
    model = local_model(name)
    assert verify_weights(model) == weights
    with weights.open("ab") as handle:
        handle.write(b"\0")
    with pytest.raises(WeightsMismatchError):
        verify_weights(model)


def test_missing_weights_name_the_install_step(minilm_copy):
    name, weights = minilm_copy
    weights.unlink()
    with pytest.raises(ModelConfigurationError, match="is missing; it is installed by"):
        embed_texts(["hello"], model=name)


def test_installing_again_leaves_the_unpacked_model_alone(monkeypatch):
    weights = REGISTRY["all-mpnet-base-v2"].weights_path()
    before = weights.stat().st_mtime_ns
    assert model_unpack(REGISTRY["all-mpnet-base-v2"], PIECED["all-mpnet-base-v2"]) is False
    assert weights.stat().st_mtime_ns == before
    assert local_models.models_dir() in weights.parents
