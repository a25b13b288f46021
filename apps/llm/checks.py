"""Start-up checks of the embedding setting: a wrong local model name or missing weights stop `manage.py` commands
with the reason, before any chunk is embedded (the sha256 itself is checked when the model loads)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error

from apps.core.local_models import is_local
from apps.llm.local_models import ModelConfigurationError, local_model


def check_embedding_model(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    name = str(settings.EMBEDDING_MODEL)
    if not is_local(name):
        return []
    try:
        model = local_model(name)
    except ModelConfigurationError as error:
        return [Error(str(error), hint="set DESIREPATH_EMBEDDING_MODEL to a registered model", id="llm.E001")]
    problems: list[CheckMessage] = []
    if not model.weights_path().is_file():
        problems.append(
            Error(
                f"{name}: weights file {model.weights_path()} is missing",
                hint=f"installed by {model.installed_by}",
                id="llm.E002",
            )
        )
    if int(settings.CHUNK_MAX_CHARS) > model.chunk_max_chars:
        problems.append(
            Error(
                f"chunks of up to {settings.CHUNK_MAX_CHARS} characters do not fit {name}'s {model.max_tokens} tokens",
                hint=f"chunks of at most {model.chunk_max_chars} characters fit it",
                id="llm.E004",
            )
        )
    return problems
