"""The remote room: adk-fluent pipelines across processes, on ADK's own A2A support.

* `cards`: the A2A agent card of a pipeline, from its IR (skills, and the state keys it reads
  and writes, which a RemoteAgent reads back from the card).
* `serve`: a pipeline served over A2A (ADK's `to_a2a` with an adk-fluent App and session store).
* `directory`: a registry of agent cards (from URLs, a directory file or card objects), looked
  up by name, skill or tag; the builders' room adds `AgentDirectory.agent(name) -> RemoteAgent`.
* `boundaries`: `to_apps(pipeline)`, the pipeline split at its execution boundaries into ADK
  Apps joined by RemoteAgent steps, with the contract report of every part (`split`: the
  tree walk, the keys that cross, each part checked); `agent_folders`: the parts as ADK agent
  folders (adk api_server / deploy).
* `worker`: the workers of a boundary served by a queue (a redis:// URL): `QueueWorker`, which
  `SplitApps.worker(service)` makes and `adk-fluent worker` runs (not imported here: it loads
  ADK); the caller's side is `adk.custom_agents.queued`.

`RemoteAgent` (the client step) is a builder in `api.remote`; its compiled agent is in
`adk.custom_agents.remote`. This room sits above `run` (it compiles through the engine) and below the
builders' room and the CLI.
"""

from adk_fluent.remote.agent_folders import load_part, write_agent_folders
from adk_fluent.remote.boundaries import SplitApps, SplitReport, to_apps
from adk_fluent.remote.cards import StateInterface, agent_card, state_interface
from adk_fluent.remote.directory import CardDirectory
from adk_fluent.remote.serve import a2a_app, serve
from adk_fluent.remote.split import Crossing

__all__ = [
    "CardDirectory",
    "Crossing",
    "SplitApps",
    "SplitReport",
    "StateInterface",
    "a2a_app",
    "agent_card",
    "serve",
    "load_part",
    "state_interface",
    "to_apps",
    "write_agent_folders",
]
