"""Checking a pipeline's IR loads no google.adk, seen from a fresh interpreter."""

from __future__ import annotations


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
