"""The PII filter's names: the middleware's, its event metadata key, its keep_original policies
and the framework calls it leaves alone."""

from __future__ import annotations

import logging
from typing import Literal

NAME = "pii_filter"
METADATA_KEY = "adk_fluent.pii"
logger = logging.getLogger("adk_fluent.pii")

KeepOriginal = Literal["nowhere", "store", "artifact"]
KEEP_ORIGINAL: tuple[str, ...] = ("nowhere", "store", "artifact")

# Function calls / responses that drive ADK's own flows: never rewritten.
FRAMEWORK_CALLS = frozenset(
    {"adk_request_confirmation", "adk_request_credential", "adk_request_input"}
)
