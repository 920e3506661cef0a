"""What a documentation block runs with: offline models, README's elided names, and a clean slate.

A reader copies a block into a script and runs it; the suite runs it the same way, with two
things a reader's machine would supply differently:

- `offline_models()`: any model NAME an agent has (`"gemini-2.5-flash"`, or none, so ADK's
  default), and an evaluation judge's or simulated user's model name, resolves to a catch-all
  scripted model that answers every request with `OFFLINE_REPLY` and never calls a tool. A
  block that runs a pipeline without `backend=` is then offline and deterministic. It patches
  ADK's `LLMRegistry.resolve` / `new_llm` for the duration of the block only (the library never
  does this); a block with `backend=` keeps its backend's scripted models, which are instances,
  not names.
- `isolated()`: a block runs in an empty temporary folder (files it writes go there), with an
  empty compiled-App cache (two blocks using `session_id="s1"` do not share a conversation);
  contract checks it registers are gone afterwards, and the session stores it opened closed.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import AsyncIterator, Iterator
from typing import Any

OFFLINE_REPLY = "This is a scripted reply."


def _offline_model_class(reply: str) -> type:
    from adk_fluent.testing import ScriptedModel, repeat

    class OfflineModel(ScriptedModel):
        """Answers every request of any agent with the same short text; never calls a tool."""

        def __init__(self, **data: Any) -> None:
            data["model"] = data.get("model") or "gemini-offline"
            super().__init__([repeat(reply)], **data)  # an endless repeat: any number of calls

    return OfflineModel


@contextlib.contextmanager
def offline_models(reply: str = OFFLINE_REPLY) -> Iterator[None]:
    """Every model name ADK's own model classes would serve (Gemini, and the other providers ADK
    ships) resolves to a scripted model answering `reply`, until the block ends. Agents' names
    and the default model go through `LLMRegistry.new_llm`; ADK's evaluation judges and user
    simulator through `LLMRegistry.resolve`: both are patched. A model class a block registers
    itself keeps its names, and a name ADK cannot resolve is still refused as ADK refuses it."""
    from google.adk.models.registry import LLMRegistry

    offline = _offline_model_class(reply)
    real_resolve, real_new_llm = LLMRegistry.__dict__["resolve"], LLMRegistry.__dict__["new_llm"]

    def resolve(model: str) -> type:
        found = real_resolve.__func__(model)
        return offline if found.__module__.startswith("google.adk.") else found

    def new_llm(model: str) -> Any:
        if resolve(model) is offline:
            return offline(model=model)
        return real_new_llm.__func__(model)

    # ADK clears the real cache when a model class is registered (LLMRegistry._register)
    resolve.cache_clear = real_resolve.__func__.cache_clear  # type: ignore[attr-defined]
    LLMRegistry.resolve = staticmethod(resolve)  # type: ignore[method-assign]
    LLMRegistry.new_llm = staticmethod(new_llm)  # type: ignore[method-assign]
    try:
        yield
    finally:
        LLMRegistry.resolve = real_resolve  # type: ignore[method-assign]
        LLMRegistry.new_llm = real_new_llm  # type: ignore[method-assign]


@contextlib.contextmanager
def _empty_app_cache() -> Iterator[None]:
    """The engine's compiled Apps (and their in-memory sessions) as if the process were new;
    the suite's own entries come back afterwards. The engine's whole instance state is swapped,
    whatever its fields are named."""
    from adk_fluent.run.engine import ENGINE, Engine

    saved = dict(vars(ENGINE))
    vars(ENGINE).update(vars(Engine()))
    try:
        yield
    finally:
        vars(ENGINE).clear()
        vars(ENGINE).update(saved)


@contextlib.contextmanager
def _checks_restored() -> Iterator[None]:
    """The contract-check registry as it was before the block (a block's `@register_check`
    would otherwise run in every later check of the process)."""
    from adk_fluent.analysis.contracts import registry

    saved, builtin = dict(registry._REGISTRY), set(registry._BUILTIN)
    try:
        yield
    finally:
        registry._REGISTRY.clear()
        registry._REGISTRY.update(saved)
        registry._BUILTIN.clear()
        registry._BUILTIN.update(builtin)


@contextlib.asynccontextmanager
async def isolated() -> AsyncIterator[str]:
    """Run a block in a fresh temporary folder with an empty App cache and offline models;
    yields the folder. Session stores the block opened are closed when it ends."""
    from adk_fluent import close_session_stores

    before = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="adk-fluent-doc-") as folder:
        os.chdir(folder)
        try:
            with _empty_app_cache(), _checks_restored(), offline_models():
                yield folder
        finally:
            os.chdir(before)
            await close_session_stores()
