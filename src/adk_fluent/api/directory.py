"""`AgentDirectory`: a registry of A2A agent cards that hands out `RemoteAgent` steps.

    directory = AgentDirectory.from_urls(["http://payments:8001", "http://search:8002"])
    directory = AgentDirectory.from_file("agents.yaml")
    pipeline = Agent("classifier") >> directory.agent("payments") >> Agent("responder")
    directory.find(skill="refund")                      # names of the cards with that skill

Loading, checking and looking cards up is `remote.directory.CardDirectory` (the remote room,
below this one: it cannot import the builders). This subclass only adds the step: `.agent()`
is `RemoteAgent.from_card(card)` on the card the directory holds, so the RemoteAgent carries
the card as a value (resolved now, at build) and the state keys the card declares.
"""

from __future__ import annotations

from typing import Any

from adk_fluent.api.remote import RemoteAgent
from adk_fluent.ir.a2a_card import card_agent_name
from adk_fluent.remote.directory import CardDirectory


class AgentDirectory(CardDirectory):
    """A2A agent cards by name (`from_urls`, `from_file`, `from_cards`, `await load(...)`);
    `agent(name)` is a RemoteAgent step for one of them."""

    def agent(self, listed: str, /, **options: Any) -> RemoteAgent:
        """A RemoteAgent for the card listed as `listed`; `options` as for RemoteAgent
        (`sends=`, `receives=`, `timeout=`, `description=`, and `name=` for the agent's own
        name, which is the listed name made an identifier otherwise). An unknown name is a
        BuildError with a did-you-mean."""
        card = self.card(listed)
        agent_name = options.pop("name", None) or card_agent_name(listed)
        return RemoteAgent.from_card(card, name=agent_name, **options)

    def agents(self, *, skill: str | None = None, tag: str | None = None) -> list[RemoteAgent]:
        """A RemoteAgent for every card with that skill (id or name) or tag, in directory order."""
        return [self.agent(name) for name in self.find(skill=skill, tag=tag)]
