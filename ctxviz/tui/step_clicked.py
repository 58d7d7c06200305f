"""The message a widget that lists or draws steps posts when one is clicked: its screen goes there."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass
class StepClicked(Message):
    index: int
