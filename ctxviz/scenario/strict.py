"""The base of every scenario model: frozen, and a key it does not know is an error, not ignored."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Visibility = Literal["hidden", "brief", "full"]


class Strict(BaseModel):
    # defer_build: a part's own validator is built only if that part is validated on its own; loading a
    # scenario builds the whole schema once, from the top (2% fewer instructions for a 1,000-event run)
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
