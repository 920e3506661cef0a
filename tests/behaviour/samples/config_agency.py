"""A coordinator whose specialists are built in a loop from a list of configuration records
(name, description, instruction, output key, sampling settings, tools, agent-tool options):
the shape of config-driven trees such as adk-samples' marketing agency, whose specialists differ
only by prompt and settings."""

from __future__ import annotations

from google.adk.agents import LlmAgent
from google.adk.tools.agent_tool import AgentTool
from google.genai import types

from adk_fluent import Agent
from adk_fluent.testing import call

SHAPE = "config-driven tree: agent tools built from a list of dicts; generate_content_config"
MODEL = "gemini-2.5-flash"

TAKEN = {"brightbrew.com"}


def check_domain(domain: str) -> dict:
    """Whether a domain name is still free to register."""
    return {"domain": domain, "available": domain not in TAKEN}


def palette_for(mood: str) -> dict:
    """A colour palette for a mood."""
    return {"mood": mood, "colours": ["#2b2d42", "#ef233c"] if mood == "bold" else ["#e0fbfc"]}


SPECIALISTS = [
    {
        "name": "domain_finder",
        "description": "Suggests domain names that are free.",
        "instruction": "Suggest three domain names for the business; check each with check_domain.",
        "output_key": "domains",
        "temperature": 0.9,
        "tools": [check_domain],
    },
    {
        "name": "brand_designer",
        "description": "Proposes a visual identity.",
        "instruction": "Propose a logo idea and a palette (palette_for) for: {domains?}",
        "output_key": "brand",
        "temperature": 0.7,
        "tools": [palette_for],
    },
    {
        "name": "launch_planner",
        "description": "Writes the launch plan; its answer goes to the user as it is.",
        "instruction": "Write a four-step launch plan using the brand: {brand?}",
        "output_key": "launch_plan",
        "temperature": 0.3,
        "tools": [],
        "tool_options": {"skip_summarization": True},
    },
]

COORDINATE = (
    "You run a small branding studio. Use domain_finder, then brand_designer, then "
    "launch_planner, and pass each one what the user told you."
)


def native():
    tools = []
    for spec in SPECIALISTS:
        specialist = LlmAgent(
            name=spec["name"],
            model=MODEL,
            description=spec["description"],
            instruction=spec["instruction"],
            output_key=spec["output_key"],
            tools=spec["tools"],
            generate_content_config=types.GenerateContentConfig(temperature=spec["temperature"]),
        )
        tools.append(AgentTool(agent=specialist, **spec.get("tool_options", {})))
    return LlmAgent(
        name="studio_coordinator",
        model=MODEL,
        instruction=COORDINATE,
        tools=tools,
        generate_content_config=types.GenerateContentConfig(
            temperature=0.1, max_output_tokens=1024
        ),
    )


def fluent():
    coordinator = (
        Agent("studio_coordinator", MODEL)
        .instruct(COORDINATE)
        .generate_content_config(
            types.GenerateContentConfig(temperature=0.1, max_output_tokens=1024)
        )
    )
    for spec in SPECIALISTS:
        specialist = (
            Agent(spec["name"], MODEL)
            .description(spec["description"])
            .instruct(spec["instruction"])
            .outputs(spec["output_key"])
            .tools(*spec["tools"])
            .generate_content_config(types.GenerateContentConfig(temperature=spec["temperature"]))
        )
        coordinator = coordinator.agent_tool(specialist, **spec.get("tool_options", {}))
    return coordinator


TURNS = ["I am opening a coffee roastery called Bright Brew; bold style please."]
SCRIPTS = {
    "studio_coordinator": [
        call("domain_finder", request="Domains for Bright Brew, a coffee roastery"),
        call("brand_designer", request="A bold identity for Bright Brew"),
        call("launch_planner", request="Launch plan for Bright Brew"),
    ],
    "domain_finder": [
        call("check_domain", domain="brightbrew.com"),
        call("check_domain", domain="brightbrew.coffee"),
        "brightbrew.coffee is free; brightbrew.com is taken.",
    ],
    "brand_designer": [
        call("palette_for", mood="bold"),
        "A sunrise over a bean; palette #2b2d42 and #ef233c.",
    ],
    "launch_planner": ["1. Register brightbrew.coffee. 2. Print bags. 3. Tasting day. 4. Open."],
}
AGENTS = 4
