"""A coordinator whose specialists are agent tools, one of which calls an agent tool of its own
(two deep); the specialists' output keys reach the coordinator's state and the next
specialist's instruction (the shape of adk-samples' financial advisor and academic research)."""

from __future__ import annotations

from google.adk.agents import LlmAgent
from google.adk.tools.agent_tool import AgentTool

from adk_fluent import Agent
from adk_fluent.testing import call

SHAPE = "coordinator with agent tools, nested two deep; output keys flow between them"
MODEL = "gemini-2.5-flash"

QUOTES = {"ACME": 132.5, "GLOBEX": 48.1}
SCENARIOS = {"rate_rise": -0.08, "recession": -0.21}


def fetch_quotes(symbols: list[str]) -> dict:
    """The latest price of each ticker symbol."""
    return {symbol: QUOTES.get(symbol) for symbol in symbols}


def run_scenario(scenario: str, weights: dict[str, float]) -> dict:
    """The portfolio's return under a named stress scenario."""
    return {"scenario": scenario, "return": SCENARIOS.get(scenario, 0.0) * sum(weights.values())}


COORDINATE = (
    "Help the user build a portfolio. Call market_analyst for prices, then strategy_analyst "
    "for a strategy, then risk_analyst for its risks; finish with a short recommendation."
)
MARKET = "Fetch prices for the tickers the request names with fetch_quotes; summarise them."
STRATEGY = "Propose portfolio weights for this market view:\n{market_view}"
RISK = (
    "Assess the risk of this strategy:\n{strategy}\n"
    "Ask stress_tester for the worst scenario before you answer."
)
STRESS = "Run rate_rise and recession through run_scenario for the weights asked about."


def native():
    market = LlmAgent(
        name="market_analyst",
        model=MODEL,
        description="Fetches and summarises prices.",
        instruction=MARKET,
        tools=[fetch_quotes],
        output_key="market_view",
    )
    strategy = LlmAgent(
        name="strategy_analyst",
        model=MODEL,
        description="Turns a market view into portfolio weights.",
        instruction=STRATEGY,
        output_key="strategy",
    )
    stress = LlmAgent(
        name="stress_tester",
        model=MODEL,
        description="Runs stress scenarios on a set of weights.",
        instruction=STRESS,
        tools=[run_scenario],
        output_key="stress_results",
    )
    risk = LlmAgent(
        name="risk_analyst",
        model=MODEL,
        description="Assesses the risk of a strategy.",
        instruction=RISK,
        tools=[AgentTool(agent=stress)],
        output_key="risk_review",
    )
    return LlmAgent(
        name="portfolio_coordinator",
        model=MODEL,
        description="Guides a user to a portfolio through specialist analysts.",
        instruction=COORDINATE,
        tools=[AgentTool(agent=market), AgentTool(agent=strategy), AgentTool(agent=risk)],
        output_key="recommendation",
    )


def fluent():
    market = (
        Agent("market_analyst", MODEL)
        .description("Fetches and summarises prices.")
        .instruct(MARKET)
        .tool(fetch_quotes)
        .outputs("market_view")
    )
    strategy = (
        Agent("strategy_analyst", MODEL)
        .description("Turns a market view into portfolio weights.")
        .instruct(STRATEGY)
        .outputs("strategy")
    )
    stress = (
        Agent("stress_tester", MODEL)
        .description("Runs stress scenarios on a set of weights.")
        .instruct(STRESS)
        .tool(run_scenario)
        .outputs("stress_results")
    )
    risk = (
        Agent("risk_analyst", MODEL)
        .description("Assesses the risk of a strategy.")
        .instruct(RISK)
        .tool(stress)
        .outputs("risk_review")
    )
    return (
        Agent("portfolio_coordinator", MODEL)
        .description("Guides a user to a portfolio through specialist analysts.")
        .instruct(COORDINATE)
        .tool(market)
        .tool(strategy)
        .tool(risk)
        .outputs("recommendation")
    )


TURNS = ["I hold ACME and GLOBEX. How should I weight them?"]
SCRIPTS = {
    "portfolio_coordinator": [
        call("market_analyst", request="Prices for ACME and GLOBEX"),
        call("strategy_analyst", request="Weights for ACME and GLOBEX"),
        call("risk_analyst", request="Risk of 60/40 ACME/GLOBEX"),
        "Hold 60% ACME and 40% GLOBEX; expect about -21% in a recession.",
    ],
    "market_analyst": [
        call("fetch_quotes", symbols=["ACME", "GLOBEX"]),
        "ACME trades at 132.5, GLOBEX at 48.1.",
    ],
    "strategy_analyst": ["60% ACME, 40% GLOBEX."],
    "risk_analyst": [
        call("stress_tester", request="Stress 60/40 ACME/GLOBEX"),
        "Moderate risk; the recession scenario costs about 21%.",
    ],
    "stress_tester": [
        call("run_scenario", scenario="rate_rise", weights={"ACME": 0.6, "GLOBEX": 0.4}),
        call("run_scenario", scenario="recession", weights={"ACME": 0.6, "GLOBEX": 0.4}),
        "Rate rise: -8%. Recession: -21%.",
    ],
}
AGENTS = 5
