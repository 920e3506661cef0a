"""A pipeline with an execution boundary, and its "heavy" service served in a subprocess, for
tests/integration/remote/test_split_pipeline.py.

    S.capture >> Agent(a) >> (Agent(b) >> S.set >> S.drop).execution_boundary("heavy") >> Agent(c)

The scripted models answer from their instruction (state injected into it), so every reply
shows which state the agent read: "b" (in the service) can only name the topic and question if
they crossed to it, and "c" (back in the caller) the result and flag only if they came back;
the question the service deletes is deleted in the caller too.

The server is `python -m tests.support.split <port>`: it builds the same pipeline, splits it,
and serves the "heavy" service on 127.0.0.1:<port> (the split's `serve`). It is stopped by its
PID.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from tests.support.servers import REPO, ServerProcess, free_port

SERVICE = "heavy"
CARD_PATH = "/.well-known/agent-card.json"
ADK_CLI = Path(sys.executable).parent / "adk"


def _instruction(request: Any) -> str:
    value = request.config.system_instruction if request.config else None
    return value if isinstance(value, str) else str(value or "")


def _between(request: Any) -> str:
    text = _instruction(request)
    return text.split("<<", 1)[1].split(">>", 1)[0]


def topic_reply(request: Any) -> str:
    """Agent a: names the topic of the question it was given."""
    return "topic of " + _between(request)


def heavy_reply(request: Any) -> str:
    """Agent b (in the service): shows the topic and question it received."""
    return "worked on " + _between(request)


def answer_reply(request: Any) -> str:
    """Agent c: shows the result and flag that came back."""
    return "answer: " + _between(request)


def scripts() -> dict[str, Any]:
    """Scripts for every agent of the pipeline (each answers any number of calls)."""
    from adk_fluent.testing import repeat

    return {"a": repeat(topic_reply), "b": repeat(heavy_reply), "c": repeat(answer_reply)}


def split_pipeline() -> Any:
    """`a >> (b >> S.set(...) >> S.drop(...)).execution_boundary("heavy") >> c`."""
    from adk_fluent import Agent, S

    return (
        S.capture("question")
        >> Agent("a").instruct("Name the topic of <<{question}>>.").outputs("topic")
        >> (
            Agent("b").instruct("Work on <<{topic} | {question}>>.").outputs("result")
            >> S.set(heavy_done="yes")
            >> S.drop("question")  # a deletion crosses back like any write
        ).execution_boundary(SERVICE, description="does the heavy work")
        >> Agent("c").instruct("Answer with <<{result} | {heavy_done}>>.").outputs("answer")
    )


def __getattr__(name: str) -> Any:
    """`PIPELINE` and `BACKEND`, what agent folders (write_agent_folders) import by reference:
    made on first use, so importing this module stays light."""
    if name == "PIPELINE":
        value = globals()["PIPELINE"] = split_pipeline()
        return value
    if name == "BACKEND":
        from adk_fluent.testing import mock_backend

        value = globals()["BACKEND"] = mock_backend(scripts())
        return value
    raise AttributeError(name)


def service_process(log: Path) -> ServerProcess:
    """The "heavy" service of the split pipeline, served by the split's own `serve`."""
    port = free_port()
    command = [sys.executable, "-m", "tests.support.split", str(port)]
    return ServerProcess(
        command, port=port, ready_path=CARD_PATH, log=log, env={"PYTHONPATH": str(REPO)}
    )


def api_server(agents: Path, port: int, log: Path, *, a2a: bool = False) -> ServerProcess:
    """`adk api_server` over the agent folders in `agents` (with `--a2a`: the folders with an
    agent.json served over A2A at /a2a/<folder>); ready once it lists its apps."""
    command = [str(ADK_CLI), "api_server", *(["--a2a"] if a2a else [])]
    command += ["--host", "127.0.0.1", "--port", str(port), "--log_level", "warning", str(agents)]
    return ServerProcess(  # the folders import tests.support.split: the checkout on the path
        command,
        port=port,
        ready_path="/list-apps",
        log=log,
        cwd=agents.parent,
        env={"PYTHONPATH": str(REPO)},
    )


def main(port: int) -> None:
    """Serve the "heavy" service of the split pipeline on 127.0.0.1:`port`."""
    import warnings

    warnings.simplefilter("ignore")  # ADK's experimental-feature warnings, at every call
    from adk_fluent.remote.boundaries import to_apps
    from adk_fluent.testing import mock_backend

    split = to_apps(
        split_pipeline(),
        urls={SERVICE: f"http://127.0.0.1:{port}"},
        backend=mock_backend(scripts()),
    )
    split.serve(SERVICE, host="127.0.0.1", port=port)


if __name__ == "__main__":
    main(int(sys.argv[1]))
