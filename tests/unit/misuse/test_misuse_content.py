"""Misuse of the content contracts: `Agent.accepts()`, `.produces_modality()` and hand-made
ContentSpecs. Each is refused when the method is called (naming the agent and the method, with a
did-you-mean or the modality a MIME type stands for), or by the contract check when a `.strict()`
pipeline shows an agent a modality it does not accept."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, C, ContentSpec, Modality, check_contracts
from tests.support.misuse import case, check, ids


def _painter():
    return Agent("painter").instruct("Draw.").produces_modality("image")


def _writer():
    return Agent("writer").instruct("Write.").accepts("text")


CASES = [
    # -- naming modalities ------------------------------------------------------------------------
    case(
        "content-accepts-nothing",
        lambda: Agent("v").accepts(),
        "agent 'v'",
        "accepts",
        "one modality",
    ),  # fmt: skip
    case(
        "content-produces-nothing",
        lambda: Agent("v").produces_modality(),
        "produces_modality",
        "one modality",
    ),
    case("content-accepts-typo", lambda: Agent("v").accepts("imgae"), "did you mean 'image'"),
    case(
        "content-produces-typo",
        lambda: Agent("v").produces_modality("vidoe"),
        "produces_modality",
        "did you mean 'video'",
    ),
    case(
        "content-accepts-mime-type",
        lambda: Agent("v").accepts("image/png"),
        "MIME type",
        '"image"',
    ),
    case(
        "content-accepts-pdf-mime-type",
        lambda: Agent("v").accepts("application/pdf"),
        '"pdf"',
    ),
    case("content-accepts-a-number", lambda: Agent("v").accepts(3), "Modality or its name"),
    case(
        "content-accepts-a-list",
        lambda: Agent("v").accepts(["image", "text"]),
        "Modality or its name",
        '.accepts("image", "text")',
    ),
    case(
        "content-accepts-the-enum-class",
        lambda: Agent("v").accepts(Modality),
        "Modality or its name",
    ),
    case("content-accepts-none", lambda: Agent("v").accepts(None), "Modality or its name"),
    # -- token bounds -----------------------------------------------------------------------------
    case(
        "content-accepts-zero-tokens",
        lambda: Agent("v").accepts("text", max_tokens=0),
        "agent 'v'",
        "max_tokens must be a positive whole number",
    ),
    case(
        "content-produces-text-tokens",
        lambda: Agent("v").produces_modality("text", max_tokens="500"),
        "produces_modality",
        "max_tokens",
    ),
    case(
        "content-accepts-bool-tokens",
        lambda: Agent("v").accepts("text", max_tokens=True),
        "positive whole number",
    ),
    # -- hand-made specs --------------------------------------------------------------------------
    case("content-spec-typo", lambda: ContentSpec(accepts={"audoi"}), "did you mean 'audio'"),
    case("content-spec-empty", lambda: ContentSpec(produces=[]), "one modality"),
    case(
        "content-spec-negative-bound",
        lambda: ContentSpec(max_output_tokens=-1),
        "max_output_tokens",
    ),
    # -- the contract check refuses what a model could not read ------------------------------------
    case(
        "content-image-to-text-only-strict",
        lambda: (_painter() >> _writer()).strict().build(),
        "modality-mismatch",
        "writer is shown image from painter",
        '.accepts("text", "image")',
    ),
    case(
        "content-image-via-from-agents-strict",
        lambda: check_contracts(
            _painter() >> _writer().context(C.from_agents("painter")), strict=True
        ),
        'C.from_agents("painter")',
        "image",
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
