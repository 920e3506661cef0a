"""Researchers run side by side, each with a search tool and its own output key, then a
synthesiser merges their notes (the shape of the ADK docs' parallel research pipeline)."""

from __future__ import annotations

from google.adk.agents import LlmAgent, ParallelAgent, SequentialAgent

from adk_fluent import Agent
from adk_fluent.testing import call

SHAPE = "parallel research fan-out, then a synthesiser"
MODEL = "gemini-2.5-flash"

NEWS = {
    "heat pumps": "Heat pump sales rose in three markets.",
    "district heating": "Two cities extended their district heating networks.",
    "thermal storage": "A sand battery pilot stored heat for a week.",
}


def search_news(query: str) -> dict:
    """Search recent news for a query."""
    return {"query": query, "headline": NEWS.get(query, "nothing found")}


RESEARCH = "Research recent developments in {topic} with search_news; summarise them in two lines."
SYNTHESISE = (
    "Write a short briefing from these notes, one paragraph per area.\n"
    "Heat pumps: {pump_notes}\nDistrict heating: {district_notes}\n"
    "Thermal storage: {storage_notes}"
)


def native():
    pumps = LlmAgent(
        name="pump_researcher",
        model=MODEL,
        instruction=RESEARCH.format(topic="heat pumps"),
        tools=[search_news],
        output_key="pump_notes",
    )
    district = LlmAgent(
        name="district_researcher",
        model=MODEL,
        instruction=RESEARCH.format(topic="district heating"),
        tools=[search_news],
        output_key="district_notes",
    )
    storage = LlmAgent(
        name="storage_researcher",
        model=MODEL,
        instruction=RESEARCH.format(topic="thermal storage"),
        tools=[search_news],
        output_key="storage_notes",
    )
    researchers = ParallelAgent(
        name="heat_researchers",
        description="Researches three areas at once.",
        sub_agents=[pumps, district, storage],
    )
    synthesiser = LlmAgent(
        name="briefing_writer", model=MODEL, instruction=SYNTHESISE, output_key="briefing"
    )
    return SequentialAgent(name="heat_briefing", sub_agents=[researchers, synthesiser])


def fluent():
    def researcher(name: str, topic: str, key: str) -> Agent:
        return (
            Agent(name, MODEL).instruct(RESEARCH.format(topic=topic)).tool(search_news).outputs(key)
        )

    researchers = (
        researcher("pump_researcher", "heat pumps", "pump_notes")
        | researcher("district_researcher", "district heating", "district_notes")
        | researcher("storage_researcher", "thermal storage", "storage_notes")
    )
    synthesiser = Agent("briefing_writer", MODEL).instruct(SYNTHESISE).outputs("briefing")
    return (
        researchers.named("heat_researchers").description("Researches three areas at once.")
        >> synthesiser
    ).named("heat_briefing")


TURNS = ["What happened in low-carbon heating this month?"]
SCRIPTS = {
    "pump_researcher": [call("search_news", query="heat pumps"), "Heat pump sales are up."],
    "district_researcher": [
        call("search_news", query="district heating"),
        "Networks are growing in two cities.",
    ],
    "storage_researcher": [
        call("search_news", query="thermal storage"),
        "Sand batteries held heat for a week.",
    ],
    "briefing_writer": ["Briefing: pumps up, networks growing, sand batteries promising."],
}
AGENTS = 6
