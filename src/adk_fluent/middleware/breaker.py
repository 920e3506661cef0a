"""circuit_breaker: stop calling a model that keeps failing, and try it again later.

A circuit counts consecutive failed model calls (`on_model_error_callback`); a reply without an
error code (`after_model_callback`) resets it. After `failures` in a row it opens: every model
call is then answered at once by `before_model_callback` with an error reply (`error_code`
CIRCUIT_OPEN, naming the agent, the model, the failure count and when the model will be tried
again) and the run stops there (no later agent runs). Once `reset_after` seconds have passed it
is half-open: one call goes through; a good reply closes it, a failure opens it again.

The circuits belong to the middleware instance, so every session of an app that holds it shares
them (that is the point: one user's failures spare the next user the wait). `per="model"` keeps
one circuit per model name, `per="app"` one for every model.

With retry attached (priority -10, after the breaker's -30): the breaker sees a failed call
before retry does and counts it; when retry recovers the call, the breaker sees the good reply
and resets. So it counts calls that still failed after retry, never retry's own attempts.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Literal

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse

from adk_fluent.adk.compat import invocation_of
from adk_fluent.adk.plugins.middleware import agent_path, sync_callback
from adk_fluent.arguments import checked_callable, checked_choice, checked_count, checked_seconds
from adk_fluent.ir.middleware import Middleware
from adk_fluent.middleware.replies import error_reply, stop_run

_NAME = "circuit_breaker"
ERROR_CODE = "CIRCUIT_OPEN"
APP_KEY = "*"  # the one circuit of per="app"

CircuitState = Literal["closed", "open", "half-open"]


class Circuit:
    """One circuit's state machine (no ADK): `admit()` before a call, then `failure()` or
    `success()` after it. Not thread-safe by itself; CircuitBreaker guards it."""

    def __init__(self, failures: int, reset_after: float, clock: Callable[[], float]) -> None:
        self.threshold = failures
        self.reset_after = reset_after
        self.clock = clock
        self.failures = 0  # consecutive failed calls
        self.opened_at: float | None = None
        self.trial_since: float | None = None  # the half-open call let through, when

    @property
    def state(self) -> CircuitState:
        if self.opened_at is None:
            return "closed"
        if self.clock() - self.opened_at >= self.reset_after:
            return "half-open"
        return "open"

    def admit(self) -> float | None:
        """None: the call may go. Otherwise the seconds until the model is tried again."""
        if self.opened_at is None:
            return None
        now = self.clock()
        wait = self.opened_at + self.reset_after - now
        if wait > 0:
            return wait
        # half-open: one call at a time; a trial that never reported back (a later middleware
        # answered it, or it was cancelled) is given up after another reset_after
        if self.trial_since is None or now - self.trial_since >= self.reset_after:
            self.trial_since = now
            return None
        return self.trial_since + self.reset_after - now

    def failure(self) -> None:
        self.failures += 1
        self.trial_since = None
        if self.opened_at is not None or self.failures >= self.threshold:
            self.opened_at = self.clock()  # (re)open: a failed trial waits reset_after again

    def success(self) -> None:
        self.failures = 0
        self.opened_at = None
        self.trial_since = None


def model_name(callback_context: Any) -> str:
    """The name of the model the agent of a model callback calls."""
    agent = getattr(invocation_of(callback_context), "agent", None)
    model = getattr(agent, "model", None)
    if isinstance(model, str) and model:
        return model
    if isinstance(model, BaseLlm):
        return model.model
    canonical = getattr(agent, "canonical_model", None)  # inherited from an ancestor
    return canonical.model if isinstance(canonical, BaseLlm) else "unknown model"


class CircuitBreaker(Middleware):
    """Fails fast while a model keeps failing (see `circuit_breaker()`)."""

    name = _NAME

    def __init__(
        self,
        failures: int = 5,
        reset_after: float = 30.0,
        *,
        per: Literal["model", "app"] = "model",
        scope: str | tuple[str, ...] | None = None,
        priority: int = -30,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.failures = checked_count(
            failures,
            _NAME,
            "failures",
            least=1,
            hint="failures=5 opens the circuit after five failed model calls in a row.",
        )
        self.reset_after = checked_seconds(
            reset_after,
            _NAME,
            "reset_after",
            positive=True,
            hint="reset_after=30.0: seconds the circuit stays open before one call is tried.",
        )
        checked_choice(
            per,
            _NAME,
            "per",
            ("model", "app"),
            hint="per='model' keeps a circuit per model name; per='app' one for all models.",
        )
        self.per = per
        self.clock = checked_callable(
            clock, _NAME, "clock", "clock returns seconds, like the default time.monotonic."
        )
        super().__init__(scope=scope, priority=priority)
        self._circuits: dict[str, Circuit] = {}
        # the circuits that failed since they last succeeded (failures counted, open or
        # half-open): while there is none, every circuit is closed and clean, so a call is let
        # through and a good reply changes nothing, without reading the model or the lock
        self._failing: set[str] = set()
        # Guards the circuits against threads running their own event loops (ask_sync); the
        # sections never await, so coroutines of one loop cannot interleave inside them anyway.
        self._lock = threading.Lock()

    def _key(self, model: str) -> str:
        return APP_KEY if self.per == "app" else model

    def _circuit(self, model: str) -> Circuit:
        key = self._key(model)
        circuit = self._circuits.get(key)
        if circuit is None:
            circuit = self._circuits[key] = Circuit(self.failures, self.reset_after, self.clock)
        return circuit

    def state(self, model: str | None = None) -> CircuitState:
        """'closed', 'open' or 'half-open': the circuit of `model` (per='model'), or the one
        circuit (per='app', `model` ignored)."""
        with self._lock:
            circuit = self._circuits.get(APP_KEY if self.per == "app" else (model or ""))
            return "closed" if circuit is None else circuit.state

    @sync_callback
    def before_model_callback(
        self, *, callback_context: Any, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """Let the call through, or answer it with a CIRCUIT_OPEN error and stop the run."""
        if not self._failing:
            return None  # every circuit closed: admit() would let it through
        model = model_name(callback_context)
        with self._lock:
            circuit = self._circuit(model)
            wait = circuit.admit()
            failed = circuit.failures
        if wait is None:
            return None
        agent = agent_path(callback_context.agent_name)
        scope = "every model of this app" if self.per == "app" else f"model '{model}'"
        message = (
            f"Circuit breaker open for {scope}: agent '{agent}' was not sent to the model "
            f"because {failed} model calls in a row failed; it will be tried again in "
            f"{wait:.1f} s."
        )
        stop_run(callback_context)
        return error_reply(
            ERROR_CODE,
            message,
            circuit_breaker={
                "model": model,
                "agent": agent,
                "failures": failed,
                "retry_in": round(wait, 3),
            },
        )

    @sync_callback
    def on_model_error_callback(
        self, *, callback_context: Any, llm_request: LlmRequest, error: Exception
    ) -> None:
        """Count the failure (never answers: retry and fallback after it still may)."""
        model = model_name(callback_context)
        with self._lock:
            self._circuit(model).failure()
            self._failing.add(self._key(model))

    @sync_callback
    def after_model_callback(self, *, callback_context: Any, llm_response: LlmResponse) -> None:
        """A reply without an error code closes the circuit (the model answered)."""
        if llm_response.error_code is not None or not self._failing:
            return None  # (no circuit failing: success() would change nothing)
        model = model_name(callback_context)
        with self._lock:
            self._circuit(model).success()
            self._failing.discard(self._key(model))
        return None


def circuit_breaker(
    failures: int = 5,
    reset_after: float = 30.0,
    *,
    per: Literal["model", "app"] = "model",
    scope: str | tuple[str, ...] | None = None,
    priority: int = -30,
    clock: Callable[[], float] = time.monotonic,
) -> CircuitBreaker:
    """Open a circuit after `failures` failed model calls in a row (per model name, or one for
    the app): while open, calls are answered at once with a CIRCUIT_OPEN error event and the run
    stops; after `reset_after` seconds (by `clock`) one call is tried, and a good reply closes
    it. Shared by every session of the app."""
    return CircuitBreaker(
        failures, reset_after, per=per, scope=scope, priority=priority, clock=clock
    )
