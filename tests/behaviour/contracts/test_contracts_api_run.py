"""The checker's API: reports (text, JSON, iteration), strictness, `.strict()` builds, the check
registry, and version-dependent judgement."""

from __future__ import annotations

import pytest

from adk_fluent import (
    Agent,
    C,
    ContractError,
    Route,
)
from adk_fluent.testing import mock_backend


def broken():
    return Agent("classifier").outputs("intent") >> Agent("booker").instruct("Book {intnet}.")


def warned():
    return (
        Agent("classifier").outputs("intent")
        >> Route("intent").eq("x", Agent("a").outputs("k")).otherwise(Agent("b"))
        >> Agent("presenter").instruct("{k}").context(C.user_only())
    )


def clean():
    return Agent("classifier").outputs("intent") >> Agent("booker").instruct(
        "Book {intent}."
    ).context(C.user_only())


async def test_strict_builder_refuses_to_run_before_any_model_call():
    backend = mock_backend({"classifier": "booking", "booker": "Booked."})
    with pytest.raises(ContractError):
        await broken().strict().run("hi", backend=backend)
    assert backend.requests.get("classifier", []) == []  # refused before any model call
