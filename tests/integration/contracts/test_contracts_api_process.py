"""The checker's API: reports (text, JSON, iteration), strictness, `.strict()` builds, the check
registry, and version-dependent judgement."""

from __future__ import annotations

from adk_fluent import (
    Agent,
    C,
    Route,
)


def broken():
    return Agent("classifier").outputs("intent") >> Agent("booker").instruct("Book {intnet}.")


def warned():
    return (
        Agent("classifier").outputs("intent")
        >> Route("intent").eq("x", Agent("a").outputs("k")).otherwise(Agent("b"))
        >> Agent("presenter").instruct("{k}").context(C.user_only())
    )


def clean():
    return Agent("classifier").outputs("intent") >> Agent("booker").instruct(
        "Book {intent}."
    ).context(C.user_only())


def test_checking_an_ir_imports_no_adk():
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from adk_fluent.ir.nodes import LlmAgentNode, SequentialAgentNode\n"
        "from adk_fluent import check_contracts\n"
        "ir = SequentialAgentNode(name='p', children=(\n"
        "    LlmAgentNode(name='a', output_key='k', writes_keys=frozenset({'k'})),\n"
        "    LlmAgentNode(name='b', instruction='{k} {z}', reads_keys=frozenset({'k', 'z'}))))\n"
        "report = check_contracts(ir)\n"
        "assert report.codes() == ['read-before-write', 'channel-duplication'], report.codes()\n"
        "print(sorted(m for m in sys.modules if m.startswith('google.adk')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
