"""fallback_model: when the agent's model fails, ask the next model with the same request.

`on_model_error_callback` calls each fallback in order with the failed LlmRequest (a copy whose
`model` is the fallback's name, so the request says which model it went to) until one answers;
that reply replaces the failed call, marked `adk_fluent.fallback: {"model": <its name>}` (so
cost_attribution prices it as that model, not the one that failed: ir.middleware.answering_model). Runs
after retry (priority -5 against -10): the agent's own model is retried first. When every
fallback fails, ADK raises the original error.

A fallback is a BaseLlm instance or a model name ADK's LLMRegistry resolves ("gemini-2.5-flash",
or any name a registered BaseLlm class claims); an unknown name is refused when the middleware
is made, and the model object is made on first use and kept (one client for every session).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.models.registry import LLMRegistry

from adk_fluent.arguments import checked_exceptions, checked_some
from adk_fluent.errors import BuildError, describe_value
from adk_fluent.ir.middleware import FALLBACK_KEY, Middleware
from adk_fluent.middleware.replies import METADATA_PREFIX, mark
from adk_fluent.middleware.retry import EmptyModelReply, count_model_call, one_reply

_NAME = "fallback_model"
_MARK = FALLBACK_KEY.removeprefix(METADATA_PREFIX)  # mark() adds the prefix back
_MODEL_HINT = (
    "give a model name ADK's LLMRegistry knows (e.g. 'gemini-2.5-flash'; other providers "
    "through LiteLlm need google-adk[extensions] and a 'provider/model' name), or a BaseLlm "
    "instance such as LiteLlm(model='openai/gpt-4o')."
)


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def _checked_model(model: Any, index: int) -> BaseLlm | str:
    where = f"models[{index}]"
    if isinstance(model, BaseLlm):
        return model
    if isinstance(model, type) and issubclass(model, BaseLlm):
        raise BuildError(
            f"{where} is the class {model.__name__}, not a model",
            agent=_NAME,
            field="models",
            hint=f"pass an instance: {model.__name__}(model='...').",
        )
    if not isinstance(model, str) or not model.strip():
        raise BuildError(
            f"{where} must be a model name or a BaseLlm instance, got {describe_value(model)}",
            agent=_NAME,
            field="models",
            hint=_MODEL_HINT,
        )
    try:
        LLMRegistry.resolve(model)
    except Exception as unknown:  # ADK raises ValueError("Model ... not found. ...")
        raise BuildError(
            f"{where}: ADK cannot resolve the model name {model!r} ({_first_line(unknown)})",
            agent=_NAME,
            field="models",
            hint=_MODEL_HINT,
        ) from None
    return model


class FallbackModel(Middleware):
    """Answers a failed model call from the next model that works (see `fallback_model()`)."""

    name = _NAME

    def __init__(
        self,
        *models: BaseLlm | str,
        on: type[Exception] | Iterable[type[Exception]] = (Exception,),
        scope: str | tuple[str, ...] | None = None,
        priority: int = -5,
    ) -> None:
        checked_some(
            models,
            _NAME,
            "models",
            shown="fallback_model()",
            items="model to fall back to",
            hint="fallback_model('gemini-2.5-flash') or fallback_model(backup_llm, "
            "'gemini-2.5-flash-lite'), tried in that order.",
        )
        self.models: tuple[BaseLlm | str, ...] = tuple(
            _checked_model(model, index) for index, model in enumerate(models)
        )
        self.on = checked_exceptions(on, _NAME)
        super().__init__(scope=scope, priority=priority)
        self._made: dict[str, BaseLlm] = {}
        self._lock = threading.Lock()  # never held across an await

    def model_names(self) -> tuple[str, ...]:
        """The fallbacks' names, in the order they are tried."""
        return tuple(m if isinstance(m, str) else m.model for m in self.models)

    def _model(self, index: int) -> BaseLlm:
        model = self.models[index]
        if isinstance(model, BaseLlm):
            return model
        with self._lock:
            made = self._made.get(model)
            if made is None:
                made = self._made[model] = LLMRegistry.new_llm(model)
            return made

    async def on_model_error_callback(
        self, *, callback_context: Any, llm_request: LlmRequest, error: Exception
    ) -> LlmResponse | None:
        """Ask each fallback in order; the first reply wins. None (ADK raises the original
        error) when the error is not one of `on`, or every fallback failed, or one failed with
        an error that is not one of `on`."""
        if not isinstance(error, self.on):
            return None
        for index in range(len(self.models)):
            if not count_model_call(callback_context):
                return None
            model = self._model(index)
            request = llm_request.model_copy(update={"model": model.model})
            try:
                response = await one_reply(model, request)
            except Exception as failed:
                if not isinstance(failed, (*self.on, EmptyModelReply)):
                    return None
                continue
            return mark(response, _MARK, {"model": model.model})  # type: ignore[no-any-return]
        return None


def fallback_model(
    *models: BaseLlm | str,
    on: type[Exception] | Iterable[type[Exception]] = (Exception,),
    scope: str | tuple[str, ...] | None = None,
    priority: int = -5,
) -> FallbackModel:
    """When a model call fails with an error that is one of `on`, ask `models` in order (names
    ADK's LLMRegistry resolves, or BaseLlm instances) with the same request until one answers;
    its reply is marked `adk_fluent.fallback`. An unknown model name is refused here."""
    return FallbackModel(*models, on=on, scope=scope, priority=priority)
