"""Progress bars for commands: moving with the work on a terminal; written into a log (a service's output, CI), a
line every few seconds and one when the bar closes, not a redraw per item."""

from __future__ import annotations

import sys
from typing import Any, TextIO

from tqdm import tqdm

# How often a bar redraws, in seconds: on a terminal it moves with the work; in a log each redraw is a line kept.
ON_A_TERMINAL = 0.1
IN_A_LOG = 10.0


def progress_bar(*, file: TextIO | None = None, **options: Any) -> tqdm:
    """A tqdm bar on `file` (standard error by default), redrawn as often as where it is written can bear."""
    out = file or sys.stderr
    # miniters=1: only an update draws, at most once per interval; with tqdm's adaptive count its monitor thread also
    # redraws a bar that went quiet, a line in a log moments before the next update's
    options.setdefault("miniters", 1)
    return tqdm(file=out, mininterval=ON_A_TERMINAL if out.isatty() else IN_A_LOG, **options)
