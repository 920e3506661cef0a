"""Which trees can run live (`Runner.run_live`, `pipeline.live()`), asked of the installed ADK.

A live run streams one model connection per agent; ADK runs an LlmAgent live (its tools, and
a transfer to a sub-agent, which opens the next agent's connection) and a SequentialAgent (each
step ends when its agent calls ADK's `task_completed`), and refuses ParallelAgent and LoopAgent
(`NotImplementedError`). adk-fluent's own steps (state steps, gates, FanOut's merge, Route,
race, map_over, timeout, ...) are custom agents without a live implementation. A tree with any
of those is refused when `live()` is called, naming the step, never half-run.

`live_support()` asks each of ADK's composite classes once per process whether it runs live:
it starts the class's live implementation with no context and sees whether ADK refuses
(NotImplementedError, raised before anything is read) or goes on (anything else).
"""

from __future__ import annotations

import functools
from typing import Any

from adk_fluent.errors import BuildError
from adk_fluent.ir.nodes import LlmAgentNode, Node, SequentialAgentNode

_HINT = (
    "run live a single agent (its tools, its .delegate() sub-agents) or a Pipeline of agents; "
    "keep other steps in the turns run()/stream() take."
)


@functools.cache
def live_support() -> dict[str, bool]:
    """Whether each of ADK's composite agents runs live on the installed release (probed)."""
    import warnings

    from google.adk.agents import LoopAgent, ParallelAgent, SequentialAgent

    async def runs_live(cls: Any) -> bool:
        with warnings.catch_warnings():  # ADK 2.x deprecates the workflow agents
            warnings.simplefilter("ignore")
            agent = cls(name="probe", sub_agents=[])
        events = agent._run_live_impl(None)
        try:
            await events.__anext__()
        except NotImplementedError:
            return False
        except Exception:  # noqa: BLE001 - it went on to read the (absent) context: it runs
            return True
        finally:
            await events.aclose()
        return True

    async def ask() -> dict[str, bool]:
        return {
            "sequential": await runs_live(SequentialAgent),
            "parallel": await runs_live(ParallelAgent),
            "loop": await runs_live(LoopAgent),
        }

    from adk_fluent.adk.probes import _in_worker_thread

    answers: dict[str, bool] = _in_worker_thread(ask)
    return answers


def live_refusal(tree: Node) -> BuildError | None:
    """Why `tree` cannot run live (a BuildError naming the first step that cannot), or None.

    Only the agents the live run walks are asked: an agent tool's tree runs as a plain turn
    inside its tool call (ADK's AgentTool), whatever it holds."""
    support = live_support()
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, LlmAgentNode) or (
            isinstance(node, SequentialAgentNode) and support["sequential"]
        ):
            stack.extend(reversed(node.children))  # each must run live itself
            continue
        kind = type(node).__name__.removesuffix("Node")
        reason = _reasons.get(kind, "it has no live implementation (ADK streams agents only)")
        return BuildError(
            f"'{node.name}' ({kind}) cannot run live: {reason}",
            agent=node.name,
            field="live",
            hint=_HINT,
        )
    return None


_reasons = {
    "ParallelAgent": "ADK does not run a ParallelAgent live (NotImplementedError)",
    "LoopAgent": "ADK does not run a LoopAgent live (NotImplementedError)",
    "SequentialAgent": "ADK does not run a SequentialAgent live on this release",
    "Transform": "a state step has no live implementation (a live Pipeline holds agents: "
    "each of its steps ends when its agent calls task_completed)",
}
