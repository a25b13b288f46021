"""What the graph lets higher apps act on (see apps/core/hooks.py)."""

from __future__ import annotations

from collections.abc import Callable

from apps.core.hooks import Hook
from apps.retrieval.candidates import Candidate

# A vault's communities were detected afresh (`vault_id=`): what spans them can be looked for now.
communities_detected: Hook[..., object] = Hook("graph.communities_detected")

# More candidates for the gate, from rooms above the graph: each receiver gets the walk's candidates and returns
# them with its own joined, keyword arguments `intent`, `question`, `vector` and `scope` (the readable vaults).
CandidateSource = Callable[..., list[Candidate]]
candidate_sources: Hook[..., list[Candidate]] = Hook("graph.candidate_sources")
