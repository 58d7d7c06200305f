"""The ``dedup=sha256`` what-if, for any agent: content the window still holds is not sent again in
full but as a reference to it (the idea of the paimon design's envelopes, applied to any profile). A file
read whole again, unchanged, while the agent still holds its first copy, and a tool output whose content
(its digest, which an imported session records) is still in the window, are each sent as the reference
when it is smaller than what the agent itself would send. The engine applies it (``EngineSession.read``
and ``output``); the profile only carries the reference's size."""

from __future__ import annotations

import dataclasses

from ctxviz.profiles.base import Profile
from ctxviz.profiles.limits import tokens_of

# What the reference costs: an envelope naming the path, its sha256 and that it is unchanged. Its size
# is assumed (our wording, a 40-character path), chars / 4.
REFERENCE_TEXT = (
    '<file path="' + "p" * 40 + '" sha256="' + "0" * 64 + '" content="full" lines="1-400" total-lines="400" '
    'status="unchanged"/>'
)
REFERENCE_TOKENS = tokens_of(REFERENCE_TEXT)


def deduplicated(profile: Profile) -> Profile:
    return dataclasses.replace(profile, repeat_reference=REFERENCE_TOKENS)
