"""A first draft, then a critic and a reviser in a loop that the reviser ends by calling ADK's
`exit_loop` tool (the shape of the ADK docs' iterative document refinement loop)."""

from __future__ import annotations

from google.adk.agents import LlmAgent, LoopAgent, SequentialAgent
from google.adk.tools import exit_loop

from adk_fluent import Agent
from adk_fluent.testing import call

SHAPE = "draft, then a critic/reviser loop ended by the exit_loop tool"
MODEL = "gemini-2.5-flash"
SETTLED = "NOTHING TO CHANGE"

DRAFT = "Write a three-sentence product description for what the user describes."
CRITIQUE = (
    "Read this product description:\n{description}\n"
    "Give one concrete improvement, or reply exactly '" + SETTLED + "' if it is good as it is."
)
REVISE = (
    "Product description:\n{description}\nCritique:\n{critique}\n"
    "If the critique is exactly '" + SETTLED + "', call exit_loop and write nothing else. "
    "Otherwise apply the critique and reply with the whole new description."
)


def native():
    drafter = LlmAgent(
        name="description_drafter", model=MODEL, instruction=DRAFT, output_key="description"
    )
    critic = LlmAgent(
        name="description_critic", model=MODEL, instruction=CRITIQUE, output_key="critique"
    )
    reviser = LlmAgent(
        name="description_reviser",
        model=MODEL,
        instruction=REVISE,
        tools=[exit_loop],
        output_key="description",
    )
    revision_loop = LoopAgent(name="revision_loop", sub_agents=[critic, reviser], max_iterations=4)
    return SequentialAgent(name="description_refiner", sub_agents=[drafter, revision_loop])


def fluent():
    drafter = Agent("description_drafter", MODEL).instruct(DRAFT).outputs("description")
    critic = Agent("description_critic", MODEL).instruct(CRITIQUE).outputs("critique")
    reviser = (
        Agent("description_reviser", MODEL).instruct(REVISE).tool(exit_loop).outputs("description")
    )
    revision_loop = ((critic >> reviser) * 4).named("revision_loop")
    return (drafter >> revision_loop).named("description_refiner")


TURNS = ["A lamp that dims itself at sunset."]
SCRIPTS = {
    "description_drafter": ["A lamp. It dims. At sunset it dims itself."],
    "description_critic": ["Say why dimming at sunset helps.", SETTLED],
    "description_reviser": [
        "A lamp that follows the sun. As evening falls it dims itself. Your eyes rest early.",
        call("exit_loop"),
    ],
}
AGENTS = 5
