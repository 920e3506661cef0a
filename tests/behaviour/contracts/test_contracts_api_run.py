"""A `.strict()` pipeline with contract errors is refused before any model is called (the checker's
API without a Runner is in tests/unit/contracts/test_contracts_api.py)."""

from __future__ import annotations

import pytest

from adk_fluent import (
    Agent,
    ContractError,
)
from adk_fluent.testing import mock_backend


def broken():
    return Agent("classifier").outputs("intent") >> Agent("booker").instruct("Book {intnet}.")


async def test_strict_builder_refuses_to_run_before_any_model_call():
    backend = mock_backend({"classifier": "booking", "booker": "Booked."})
    with pytest.raises(ContractError):
        await broken().strict().run("hi", backend=backend)
    assert backend.requests.get("classifier", []) == []  # refused before any model call
