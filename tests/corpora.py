"""Where the three real vaults the tests read live (never copied into the repository).

`DESIREPATH_CORPORA` names the folder; otherwise it is the workplace's shared folder beside the checkout, or
beside any folder above it (a clone made elsewhere on the same machine finds it too). A missing folder fails the
tests that need it: they are never skipped."""

from __future__ import annotations

import os
from pathlib import Path

VAULTS = ("kepano-obsidian", "logseq-docs", "foam-docs")
_WORKPLACE = Path("/work/shared/corpora")


def corpora_dir() -> Path:
    named = os.environ.get("DESIREPATH_CORPORA")
    if named:
        return Path(named)
    here = Path(__file__).resolve().parent.parent
    for folder in (here, *here.parents):
        if (folder.parent / "shared" / "corpora").is_dir():
            return folder.parent / "shared" / "corpora"
    return _WORKPLACE


CORPORA = corpora_dir()
