"""Helpers of the evaluation tests.

- A booking pipeline and a scripted backend that answers by what the user asked (so cases can
  run in any order, concurrently): "Paris" / "Rome" / "Oslo" in the conversation books that city
  (the `book` tool), "refund" calls `refund`, anything else asks which city. The classifier says
  "booking" or "refund" by the same rule.
- ADK's own eval-set files (../shared/external-evalsets): ADK's readers of them, a view of a
  case as ADK's metrics read it, stand-in tools, a scripted model that replays a file's calls and
  answers, and a scripted judge / simulated user for ADK's LLM-backed metrics.
- A model that fails once (what retry middleware in an ExecutionConfig is for)."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from adk_fluent import Agent
from adk_fluent.testing import call, mock_backend, repeat

CITIES = ("Paris", "Rome", "Oslo")


def book(city: str, date: str = "soon") -> str:
    """Book a trip; the reference says which city."""
    return f"BK-{city[:3].upper()}-001"


def refund(order: str) -> str:
    """Refund an order."""
    return f"refunded {order}"


def _conversation(request: Any) -> str:
    return " ".join(part.text or "" for content in request.contents for part in content.parts or [])


def classify(request: Any) -> str:
    return "refund" if "refund" in _conversation(request).casefold() else "booking"


def answer(request: Any) -> Any:
    """The booker's reply to one model call, from what the conversation holds."""
    last = request.contents[-1]
    if any(part.function_response for part in last.parts or []):
        response = next(p.function_response for p in last.parts if p.function_response)
        result = response.response.get("result", "")
        return f"Done: {result}. Your trip is booked."
    text = _conversation(request)
    if "refund" in text.casefold():
        return call("refund", order="A-17")
    for city in CITIES:
        if city in text:
            return call("book", city=city, date="2026-12-01")
    return "Which city would you like?"


def booking_pipeline() -> Any:
    """classifier (writes `intent`) >> booker (tools book / refund, writes `reply`)."""
    return Agent("classifier").instruct("Classify the request.").outputs("intent") >> Agent(
        "booker"
    ).instruct("Help with the {intent}.").tool(book).tool(refund).outputs("reply")


def booking_backend() -> Any:
    """A fresh scripted backend (its request log is per backend: one per test)."""
    return mock_backend({"classifier": repeat(classify), "booker": repeat(answer)})


# ---- ADK's own eval-set files (../shared/external-evalsets) ----------------------------------
#
# Public eval sets written by ADK's team (ADK's integration fixtures, ADK's sample agents), kept
# beside the repository as data (SOURCES.json says where each comes from), never copied into it.

REPOSITORY = Path(__file__).resolve().parents[2]
EXTERNAL_EVAL_SETS = REPOSITORY.parent / "shared" / "external-evalsets"
REVIEWER_PROMPTS: list[str] = []  # every prompt the reviewer model was given (judge and user)


def external_eval_set_files() -> list[Path]:
    """Every eval-set file there (ADK's two suffixes), so a file added later is covered too."""
    found = {
        path
        for suffix in ("*.test.json", "*.evalset.json")
        for path in EXTERNAL_EVAL_SETS.rglob(suffix)
    }
    return sorted(found)


def file_id(path: Path) -> str:
    """A test id: the path under the data folder."""
    return path.relative_to(EXTERNAL_EVAL_SETS).as_posix()


def adk_reads(path: Path, scratch: Path) -> Any:
    """The EvalSet ADK's own public readers make of the file: `load_eval_set_from_file` (what
    `adk eval` reads: the EvalSet schema, or the older `[{name, data}]` list), else
    AgentEvaluator's migration of the older `[{query, ...}]` list (the file becomes one case
    named after its path), written to `scratch` and read back."""
    from google.adk.evaluation.agent_evaluator import AgentEvaluator
    from google.adk.evaluation.eval_set import EvalSet
    from google.adk.evaluation.local_eval_sets_manager import load_eval_set_from_file

    try:
        return load_eval_set_from_file(str(path), path.name.split(".")[0])
    except (KeyError, TypeError):  # the `[{query, ...}]` list: not adk eval's, AgentEvaluator's
        target = scratch / "migrated.evalset.json"
        AgentEvaluator.migrate_eval_data_to_new_schema(str(path), str(target))
        return EvalSet.model_validate_json(target.read_text(encoding="utf-8"))


def is_list_format(path: Path) -> bool:
    """The file is in ADK's older list format (ADK generates its ids and timestamps)."""
    return isinstance(json.loads(path.read_text(encoding="utf-8")), list)


def _texts(content: Any) -> list[str]:
    return [part.text for part in (getattr(content, "parts", None) or []) if part.text]


def adk_case_view(eval_case: Any) -> tuple[Any, ...]:
    """What an ADK EvalCase asks, read the way ADK's metrics read it: per turn the user's text,
    the expected tool calls and the expected answer (text parts joined, as response_match_score
    joins them); the starting state; the scenario."""
    from google.adk.evaluation.eval_case import get_all_tool_calls

    turns = [
        (
            "".join(_texts(invocation.user_content)),
            [
                (call.name, dict(call.args or {}))
                for call in get_all_tool_calls(invocation.intermediate_data)
            ],
            "\n".join(_texts(invocation.final_response)) or None,
        )
        for invocation in eval_case.conversation or []
    ]
    scenario = eval_case.conversation_scenario
    return (
        eval_case.eval_id,
        turns,
        dict(eval_case.session_input.state) if eval_case.session_input else {},
        None if scenario is None else (scenario.starting_prompt, scenario.conversation_plan),
    )


def fluent_case_view(case: Any) -> tuple[Any, ...]:
    """The same view of a FluentCase, as adk-fluent understood the file."""
    turns = [
        (
            turn.text,
            [(call.name, dict(call.args or {})) for call in turn.tools or ()],
            turn.reference,
        )
        for turn in case.turns
    ]
    simulation = case.simulation
    return (
        case.case_id,
        turns,
        dict(case.state or {}),
        None if simulation is None else (simulation.starting_prompt, simulation.plan),
    )


def stand_in_tool(name: str) -> Any:
    """A tool named as an eval set names it, that answers "ok": the file's cases call it, a
    scripted model makes the calls, and ADK runs it like any tool."""
    from google.adk.tools.base_tool import BaseTool
    from google.genai import types

    class _StandIn(BaseTool):
        def _get_declaration(self) -> Any:
            return types.FunctionDeclaration(name=self.name, description=self.description)

        async def run_async(self, *, args: dict[str, Any], tool_context: Any) -> Any:
            return {"result": "ok"}

    return _StandIn(name=name, description=f"stands in for {name}")


def tool_names(eval_set: Any) -> list[str]:
    from google.adk.evaluation.eval_case import get_all_tool_calls

    return sorted(
        {
            call.name
            for case in eval_set.eval_cases
            for invocation in case.conversation or []
            for call in get_all_tool_calls(invocation.intermediate_data)
        }
    )


def _user_messages(request: Any) -> tuple[str, ...]:
    """The user's messages in a model request, in order (function responses are not)."""
    return tuple(
        "".join(part.text or "" for part in content.parts or [])
        for content in request.contents or []
        if content.role == "user"
        and not any(part.function_response for part in content.parts or [])
    )


NO_ANSWER = "Done."  # the reply to a turn whose file records no answer


def replayer(eval_set: Any) -> Callable[[Any], Any]:
    """A scripted model's answer to any request of the eval set's conversations: the calls the
    file expects of that turn, one per model call, then the answer it recorded. The turn is
    found by the user's messages so far, so cases can run at once, in any order; a simulated
    conversation (no recorded turns) is answered NO_ANSWER."""
    from google.adk.evaluation.eval_case import get_all_tool_calls

    from adk_fluent.errors import ScriptError
    from adk_fluent.testing import call

    turns: dict[tuple[str, ...], Any] = {}
    for case in eval_set.eval_cases:
        said: tuple[str, ...] = ()
        for invocation in case.conversation or []:
            said = (*said, "".join(_texts(invocation.user_content)))
            if said in turns and turns[said] != invocation:
                raise ScriptError(f"two cases of {eval_set.eval_set_id} begin alike: {said}")
            turns[said] = invocation
    scenarios = any(case.conversation_scenario for case in eval_set.eval_cases)

    def answer(request: Any) -> Any:
        said = _user_messages(request)
        invocation = turns.get(said)
        if invocation is None:
            if scenarios:
                return NO_ANSWER
            raise ScriptError(f"no recorded turn after {said!r}")
        made = 0  # calls made since the user's last message
        for content in reversed(request.contents):
            if content.role == "user" and not any(p.function_response for p in content.parts):
                break
            made += sum(1 for part in content.parts or [] if part.function_call)
        calls = get_all_tool_calls(invocation.intermediate_data)
        if made < len(calls):
            wanted = calls[made]
            return call(wanted.name, **dict(wanted.args or {}))
        return "\n".join(_texts(invocation.final_response)) or NO_ANSWER

    return answer


# A rubric every answer meets, for ADK's rubric metric on files whose config names none (ADK
# 1.25's rubric metric refuses a criterion without rubrics).
ANSWERS_RUBRIC = {
    "rubric_id": "answers",
    "rubric_content": {"text_property": "The agent gives the user an answer."},
}


def replay_config(path: Path, eval_set: Any) -> Any:
    """The metrics a replay of the file is held to: None when test_config.json sits beside it
    (adk-fluent reads it, as ADK's AgentEvaluator does); otherwise the ADK metrics the file's
    cases can be scored by: the tool trajectory where they record conversations, ROUGE where
    every turn records an answer (ADK scores a missing reference 0), and the rubric metric, with
    the reviewer model as judge, where they hold rubrics or a scenario."""
    from google.adk.evaluation.eval_config import EvalConfig

    if (path.parent / "test_config.json").is_file():
        return None
    cases = eval_set.eval_cases
    static = [case for case in cases if case.conversation]
    scenarios = [case for case in cases if case.conversation_scenario]
    assert not (static and scenarios), f"{path}: mixed cases; give replay_config a rule for them"
    criteria: dict[str, Any] = {}
    if static:
        criteria["tool_trajectory_avg_score"] = 1.0
        if all(_texts(turn.final_response) for case in static for turn in case.conversation):
            criteria["response_match_score"] = 0.8
    rubrics = any(
        case.rubrics or any(turn.rubrics for turn in case.conversation or []) for case in cases
    )
    if rubrics or scenarios:
        criteria["rubric_based_final_response_quality_v1"] = {
            "threshold": 1.0,
            "judge_model_options": {"judge_model": "scripted-reviewer", "num_samples": 1},
            "rubrics": [ANSWERS_RUBRIC],
        }
    return EvalConfig.model_validate({"criteria": criteria})


def _review(prompt: str) -> str:
    """A rubric judge's verdict (every property holds), or a simulated user's stop signal."""
    section = prompt.rsplit("<properties>", 1)
    if len(section) == 2:
        listed = section[1].split("</properties>", 1)[0]
        verdicts = []
        for match in re.finditer(r"^\*\s+(?:\[id: ([^\]]*)\] )?(.*)$", listed, re.M):
            rubric_id, text = match.groups()
            head = f"ID: {rubric_id}\n" if rubric_id else ""
            verdicts.append(f"{head}Property: {text}\nRationale: It holds.\nVerdict: yes")
        return "\n\n".join(verdicts)
    return "</finished>"  # ADK's user simulator: the conversation is over


@contextlib.contextmanager
def reviewer_models() -> Iterator[None]:
    """Every model NAME (an evaluation judge's, the user simulator's) resolves to a scripted
    reviewer until the block ends: it passes every rubric it is shown, and as a simulated user
    ends the conversation at once. Agents keep their backend's models (instances, not names).
    Each prompt is kept in REVIEWER_PROMPTS."""
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_response import LlmResponse
    from google.adk.models.registry import LLMRegistry
    from google.genai import types

    class Reviewer(BaseLlm):
        async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
            config = llm_request.config
            system = str(config.system_instruction or "") if config else ""
            prompt = system + "\n" + "\n".join(_user_messages(llm_request))
            REVIEWER_PROMPTS.append(prompt)
            text = _review(prompt)
            yield LlmResponse(
                content=types.Content(role="model", parts=[types.Part(text=text)]),
                usage_metadata=types.GenerateContentResponseUsageMetadata(
                    prompt_token_count=1, candidates_token_count=1, total_token_count=2
                ),
            )

    real_resolve, real_new_llm = LLMRegistry.__dict__["resolve"], LLMRegistry.__dict__["new_llm"]

    def resolve(model: str) -> type:
        return Reviewer

    def new_llm(model: str) -> Any:
        return Reviewer(model=model)

    resolve.cache_clear = real_resolve.__func__.cache_clear  # type: ignore[attr-defined]
    LLMRegistry.resolve = staticmethod(resolve)  # type: ignore[method-assign]
    LLMRegistry.new_llm = staticmethod(new_llm)  # type: ignore[method-assign]
    REVIEWER_PROMPTS.clear()
    try:
        yield
    finally:
        LLMRegistry.resolve = real_resolve  # type: ignore[method-assign]
        LLMRegistry.new_llm = real_new_llm  # type: ignore[method-assign]


def replay_pipeline(eval_set: Any) -> tuple[Any, Any]:
    """(pipeline, backend): one agent with a stand-in for every tool the eval set's cases call,
    and a scripted model that replays the file's calls and answers."""
    agent = Agent("agent").instruct("Help the user.")
    for name in tool_names(eval_set):
        agent = agent.tool(stand_in_tool(name))
    return agent, mock_backend({"agent": repeat(replayer(eval_set))})


# ---- a model that fails once: what retry middleware is for ----------------------------------


def flaky_helper() -> Any:
    """One agent, `helper`: answers "Your trip is booked." (no tool)."""
    return Agent("helper").instruct("Help with the trip.")


def flaky_backend() -> Any:
    """The helper's model fails the first call of each conversation (a busy model) and answers
    the same request when it is sent again, as a retry sends it."""
    seen: set[str] = set()

    def answer(request: Any) -> Any:
        said = _user_messages(request)[-1]
        if said not in seen:
            seen.add(said)
            return TimeoutError("the model is busy")
        return "Your trip is booked."

    return mock_backend({"helper": repeat(answer)})
