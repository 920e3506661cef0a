"""The remote room: adk-fluent pipelines across processes, on ADK's own A2A support.

* `cards`: the A2A agent card of a pipeline, from its IR (skills, and the state keys it reads
  and writes, which a RemoteAgent reads back from the card).
* `serve`: a pipeline served over A2A (ADK's `to_a2a` with an adk-fluent App and session store).

`RemoteAgent` (the client step) is a builder in `api.remote`; its compiled agent is in
`adk.agents.remote`. This room sits above `run` (it compiles through the engine) and below the
builders' room and the CLI.
"""

from adk_fluent.remote.cards import StateInterface, agent_card, state_interface
from adk_fluent.remote.serve import a2a_app, serve

__all__ = ["StateInterface", "a2a_app", "agent_card", "serve", "state_interface"]
