"""Fixtures of the node tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from ros_helpers import Probe, Receiver


@pytest.fixture
def receiver() -> Iterator[Callable[..., Receiver]]:
    """Make receivers that are closed after the test."""
    made: list[Receiver] = []

    def make(msg_type: Any, topic: str, qos: Any = None) -> Receiver:
        made.append(Receiver(msg_type, topic, qos))
        return made[-1]

    yield make
    for r in made:
        r.close()


@pytest.fixture
def probe() -> Iterator[Probe]:
    """A probe node, closed after the test."""
    p = Probe()
    yield p
    p.close()
