"""`mypy --strict` on a user's code, against the installed adk-fluent (its py.typed markers).

The user's module (user_app.py beside this file) is copied to a folder outside the checkout, with
a mypy configuration of its own, so neither the project's mypy settings nor its source tree
apply: mypy finds adk_fluent and adk_fluent_generated where the user would, among the installed
packages. Then:

* the module passes `mypy --strict` with no error, and runs (offline, scripted models);
* key expressions have the types a user expects (`a >> b` is a Pipeline, `await p.ask(...)` a
  str, every setter returns the builder's own type), and every public name is typed (not Any);
* mistakes in user code are reported: a wrong argument type, a misspelt method or name.
"""

from __future__ import annotations

import ast
import importlib.resources
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import adk_fluent
import adk_fluent.testing

pytest.importorskip("mypy", reason="mypy is in the dev extra")

HERE = Path(__file__).resolve().parent
REVEALED = re.compile(r'^(?P<file>[\w.]+):(?P<line>\d+): note: Revealed type is "(?P<type>.*)"$')
ERROR = re.compile(
    r"^(?P<file>[\w.]+):(?P<line>\d+): error: (?P<message>.*)  \[(?P<code>[\w-]+)\]$"
)


class Workspace:
    """A folder outside the checkout with its own (empty) mypy configuration and one mypy cache
    for all the runs of this module (the first run reads google-adk's types: the slow part)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "mypy.ini").write_text("[mypy]\n", encoding="utf-8")
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("MYPY", "PYTHONPATH"))}

    def write(self, name: str, text: str) -> None:
        (self.root / name).write_text(text, encoding="utf-8")

    def mypy(self, *files: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "mypy",
                "--config-file",
                "mypy.ini",
                "--strict",
                "--cache-dir",
                ".mypy_cache",
                "--no-pretty",
                "--no-error-summary",
                "--hide-error-context",
                *files,
            ],
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    root = tmp_path_factory.mktemp("user_project")
    assert not root.resolve().is_relative_to(HERE.parents[2])  # outside the checkout
    shutil.copy(HERE / "user_app.py", root / "user_app.py")
    return Workspace(root)


@pytest.mark.parametrize("package", ["adk_fluent", "adk_fluent_generated"])
def test_both_packages_are_marked_typed(package: str) -> None:
    # PEP 561: without the marker mypy ignores an installed package's annotations ("missing
    # library stubs or py.typed marker"); the wheel carries it (hatch packs every file in them)
    marker = importlib.resources.files(package) / "py.typed"
    assert marker.is_file()
    assert marker.read_text(encoding="utf-8").strip() == ""  # the whole package, not "partial"


def test_a_users_module_passes_mypy_strict(workspace: Workspace) -> None:
    result = workspace.mypy("user_app.py")

    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "", result.stdout


def test_the_users_module_runs_offline(workspace: Workspace) -> None:
    result = subprocess.run(
        [sys.executable, "user_app.py"],
        cwd=workspace.root,
        env=workspace.env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == "answer: ok", result.stdout


# Each reveal_type line says the type mypy must reveal, module paths left out.
REVEALS = """
from adk_fluent import (
    Agent, C, ExecutionConfig, FanOut, Loop, Pipeline, Route, S, check_contracts, gate,
    map_over, tap, until,
)
from adk_fluent.testing import AgentHarness, ScriptedModel, mock_backend

a = Agent("a")
b = Agent("b")
reveal_type(a.instruct("x").outputs("k").include_contents("none"))  # Agent
reveal_type(a.before_model_callback(print))  # Agent
reveal_type(a >> b)  # Pipeline
reveal_type(a >> b >> (lambda state: {"k": 1}))  # Pipeline
reveal_type(a | b)  # FanOut
reveal_type(a * 3)  # Loop
reveal_type((a >> b) * until(lambda state: True, max=3))  # Loop
reveal_type(Loop(a, b).max_iterations(2))  # Loop
reveal_type(a // b)  # Fallback
reveal_type((a >> b).description("two steps"))  # Pipeline
reveal_type(FanOut(a, b).merge("dict", into="both"))  # FanOut
reveal_type(S.set(k=1))  # StateStep
reveal_type(S.pick("k") >> a)  # Pipeline
reveal_type(C.user_only() + C.last_n_turns(2))  # ContextSpec
reveal_type(Route("k").eq("x", a).otherwise(b))  # Route
reveal_type(gate(lambda state: True, "Go on?"))  # Gate
reveal_type(tap(print))  # Tap
reveal_type(map_over("items", a))  # MapOver
reveal_type(check_contracts(a >> b))  # ContractReport
reveal_type(ExecutionConfig(app_name="app"))  # ExecutionConfig
reveal_type(mock_backend({"a": "hi"}))  # MockBackend
reveal_type(ScriptedModel(["hi"]))  # ScriptedModel


async def turns(p: Pipeline) -> None:
    reveal_type(await p.ask("hi"))  # str
    reveal_type(await p.run("hi"))  # list[AgentEvent]
    async for event in p.stream("hi"):
        reveal_type(event)  # AgentEvent
    reveal_type(await AgentHarness(p).send("hi"))  # HarnessResponse
"""


def short(type_text: str) -> str:
    """A revealed type without module paths: 'adk_fluent.api.expression.Pipeline' -> 'Pipeline'."""
    return re.sub(r"\b(?:[A-Za-z_]\w*\.)+(?=[A-Za-z_])", "", type_text)


def test_key_expressions_have_the_types_users_expect(workspace: Workspace) -> None:
    workspace.write("reveals.py", REVEALS)
    expected = {
        number: line.rsplit("# ", 1)[1]
        for number, line in enumerate(REVEALS.splitlines(), start=1)
        if "reveal_type(" in line
    }

    result = workspace.mypy("reveals.py")

    revealed = {
        int(m["line"]): short(m["type"])
        for m in map(REVEALED.match, result.stdout.splitlines())
        if m and m["file"] == "reveals.py"
    }
    assert not re.search(r"^\S+:\d+: error:", result.stdout, re.M), result.stdout
    # `await p.ask(...)` is a str (api/running.py types run/ask/stream for the engine's results)
    assert revealed == expected, result.stdout


def test_every_public_name_is_typed(workspace: Workspace) -> None:
    lines = ["import adk_fluent", "import adk_fluent.testing"]
    names = [("adk_fluent", n) for n in adk_fluent.__all__]
    names += [("adk_fluent.testing", n) for n in adk_fluent.testing.__all__]
    lines += [f"reveal_type({module}.{name})" for module, name in names]
    workspace.write("exports.py", "\n".join(lines) + "\n")

    result = workspace.mypy("exports.py")

    revealed = {
        int(m["line"]): m["type"]
        for m in map(REVEALED.match, result.stdout.splitlines())
        if m and m["file"] == "exports.py"
    }
    assert not re.search(r"^\S+:\d+: error:", result.stdout, re.M), result.stdout
    assert len(revealed) == len(names), result.stdout
    untyped = [names[line - 3] for line, shown in revealed.items() if shown == "Any"]
    assert not untyped, untyped


def test_the_top_level_re_exports_each_name_explicitly() -> None:
    # The TYPE_CHECKING imports are the one list of public names; each is written `X as X`, the
    # explicit re-export that a strict type checker (no implicit re-export) accepts.
    tree = ast.parse(Path(adk_fluent.__file__).read_text(encoding="utf-8"))
    (checked,) = [
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    ]
    implicit = [
        alias.name
        for node in ast.walk(checked)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.asname != alias.name
    ]
    assert not implicit, implicit
    # and the run-time list (read from the same block by a regex) misses none of them
    written = [
        alias.name
        for node in checked.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    ]
    assert sorted(adk_fluent.__all__) == sorted(written)


# Each line with a mistake says the error code mypy must report for it.
MISTAKES = """
from adk_fluent import Agent, C, Pipeline
from adk_fluent import Agnet  # attr-defined
import adk_fluent

Agent(1)  # arg-type
Agent("a").instruct(42)  # arg-type
Agent("a").instrct("Misspelt.")  # attr-defined
Agent("a").include_contents("some")  # arg-type
Agent("a").outputs(3)  # arg-type
Agent("a").max_iterations(3)  # attr-defined
C.usr_only()  # attr-defined
(Agent("a") >> Agent("b")).nonesuch()  # attr-defined
adk_fluent.Pipelin  # attr-defined
fan: Pipeline = Agent("a") | Agent("b")  # assignment


async def turn() -> int:
    await Agent("a").run("hi", sesion_id="s1")  # call-arg
    return await Agent("a").ask("hi")  # return-value
"""


def test_mistakes_in_user_code_are_reported(workspace: Workspace) -> None:
    workspace.write("mistakes.py", MISTAKES)
    expected = {
        (number, line.rsplit("# ", 1)[1])
        for number, line in enumerate(MISTAKES.splitlines(), start=1)
        if "  # " in line
    }

    result = workspace.mypy("mistakes.py")

    reported = {
        (int(m["line"]), m["code"])
        for m in map(ERROR.match, result.stdout.splitlines())
        if m and m["file"] == "mistakes.py"
    }
    assert result.returncode == 1, result.stdout + result.stderr
    assert reported == expected, result.stdout
