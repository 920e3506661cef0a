"""A data assistant whose tools are functions that run other agents (each wraps a module-level
agent in an AgentTool and awaits it with the tool's own context, then stores the answer in
state), a before-agent callback that puts the database schema in state for the instruction,
and a modelling agent it delegates to (the shape of adk-samples' data science agent)."""

from __future__ import annotations

from google.adk.agents import LlmAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.tools import ToolContext
from google.adk.tools.agent_tool import AgentTool
from google.genai import types

from adk_fluent import Agent
from adk_fluent.testing import call

SHAPE = "agents called from tool functions; before_agent callback writing state; delegation"
MODEL = "gemini-2.5-flash"

SCHEMA = "sales(month TEXT, units INT)"
ROWS = [("Jan", 10), ("Feb", 12), ("Mar", 15)]


def run_sql(query: str, tool_context: ToolContext) -> dict:
    """Run a read-only SQL query on the sales database."""
    tool_context.state["query_result"] = [list(row) for row in ROWS]
    return {"rows": [list(row) for row in ROWS], "query": query}


# The agents the tool functions run: no tree holds them, the functions do.
SQL_AGENT = LlmAgent(
    name="sql_agent",
    model=MODEL,
    instruction="Answer the question with one SQL query on this schema: " + SCHEMA,
    tools=[run_sql],
)
ANALYSIS_AGENT = LlmAgent(
    name="analysis_agent",
    model=MODEL,
    instruction="Analyse the data you are given and answer the question in two sentences.",
)


def hidden_agents() -> list:
    """The agents tool functions run (the behaviour test scripts them where they are)."""
    return [SQL_AGENT, ANALYSIS_AGENT]


async def ask_database(question: str, tool_context: ToolContext) -> str:
    """Answer a question from the sales database (the SQL agent writes and runs the query)."""
    answer = await AgentTool(agent=SQL_AGENT).run_async(
        args={"request": question}, tool_context=tool_context
    )
    tool_context.state["database_answer"] = answer
    return answer


async def analyse_data(question: str, tool_context: ToolContext) -> str:
    """Analyse the rows the last database question returned."""
    rows = tool_context.state.get("query_result")
    if not rows:
        return "Ask the database first: there are no rows to analyse."
    answer = await AgentTool(agent=ANALYSIS_AGENT).run_async(
        args={"request": f"Question: {question}\nData: {rows}"}, tool_context=tool_context
    )
    tool_context.state["analysis"] = answer
    return answer


def load_database_settings(callback_context: CallbackContext) -> None:
    """Put the database settings in state once per session."""
    if "database_schema" not in callback_context.state:
        callback_context.state["database_schema"] = SCHEMA


def fit_trend(months_ahead: int, tool_context: ToolContext) -> dict:
    """Fit a linear trend to the queried rows and project it forward."""
    units = [row[1] for row in tool_context.state.get("query_result") or []]
    step = (units[-1] - units[0]) / max(len(units) - 1, 1) if units else 0
    forecast = [units[-1] + step * (i + 1) for i in range(months_ahead)] if units else []
    tool_context.state["forecast"] = forecast
    return {"forecast": forecast}


ASSIST = (
    "You answer questions about sales data. The database: {database_schema}\n"
    "Use ask_database for data, analyse_data for analysis, and hand forecasting questions to "
    "forecast_agent."
)
FORECAST = "Forecast the sales the user asks about with fit_trend; explain the result briefly."


def native():
    forecaster = LlmAgent(
        name="forecast_agent",
        model=MODEL,
        description="Builds simple sales forecasts.",
        instruction=FORECAST,
        tools=[fit_trend],
    )
    return LlmAgent(
        name="data_assistant",
        model=MODEL,
        instruction=ASSIST,
        tools=[ask_database, analyse_data],
        sub_agents=[forecaster],
        before_agent_callback=load_database_settings,
        generate_content_config=types.GenerateContentConfig(temperature=0.01),
    )


def fluent():
    forecaster = (
        Agent("forecast_agent", MODEL)
        .description("Builds simple sales forecasts.")
        .instruct(FORECAST)
        .tool(fit_trend)
    )
    return (
        Agent("data_assistant", MODEL)
        .instruct(ASSIST)
        .tool(ask_database)
        .tool(analyse_data)
        .delegate(forecaster)
        .before_agent(load_database_settings)
        .generate_content_config(types.GenerateContentConfig(temperature=0.01))
        .writes("query_result")  # the SQL agent's tool, which no tree holds, writes it
    )


TURNS = ["How did sales go this quarter, and what should I expect next?"]
SCRIPTS = {
    "data_assistant": [
        call("ask_database", question="Units sold per month this quarter"),
        call("analyse_data", question="What is the trend?"),
        call("transfer_to_agent", agent_name="forecast_agent"),
    ],
    "forecast_agent": [
        call("fit_trend", months_ahead=2),
        "Expect about 17.5 and 20 units in the next two months.",
    ],
    # run by the tool functions
    "sql_agent": [
        call("run_sql", query="SELECT month, units FROM sales"),
        "Jan 10, Feb 12, Mar 15.",
    ],
    "analysis_agent": ["Sales grew every month, by about 22% on average."],
}
AGENTS = 2
