"""The ``dedup=sha256`` what-if, for any agent: a file read whole again, unchanged, while the agent still
holds its first copy, is sent as a reference to that copy instead of its content (the idea of the paimon
design's envelopes, applied to every read of any profile); and a tool output whose content (its
digest, which an imported session records) is still in the window is sent as the same reference."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ctxviz.profiles.base import Profile, ReadOutcome, ReadPolicy
from ctxviz.profiles.limits import tokens_of
from ctxviz.scenario.measure import Measure

# What the reference costs: an envelope naming the path, its sha256 and that it is unchanged. Its size
# is assumed (our wording, a 40-character path), chars / 4.
REFERENCE_TEXT = (
    '<file path="' + "p" * 40 + '" sha256="' + "0" * 64 + '" content="full" lines="1-400" total-lines="400" '
    'status="unchanged"/>'
)
REFERENCE_TOKENS = tokens_of(REFERENCE_TEXT)


@dataclass(frozen=True, slots=True)
class SentOnce:
    """The agent's own reads, except that a whole file read again while the engine still holds it as read
    and unchanged (no edit, write, compaction or /clear since) is a reference: the engine's unchanged
    stub, sized as the smaller of the agent's own stub and the reference."""

    inner: ReadPolicy
    reference: int = REFERENCE_TOKENS

    @property
    def unchanged_stub(self) -> int:
        own = self.inner.unchanged_stub
        return self.reference if own is None else min(own, self.reference)

    def read(self, path: str, size: Measure, lines: tuple[int, int] | None = None) -> ReadOutcome:
        return self.inner.read(path, size, lines)


def deduplicated(profile: Profile) -> Profile:
    return dataclasses.replace(profile, reads=SentOnce(profile.reads), repeat_reference=REFERENCE_TOKENS)
