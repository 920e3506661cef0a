"""The unit tier: pure tests (builders, IR, analyses, codegen, the checker, the misuse corpus).

No ADK Runner, no session service, no database file, no subprocess and no network: the guards in
tests/support/tiers.py fail a test that reaches one. Goal: 1000+ tests in under 10 seconds
(`make test-unit`; `python -m bench.bench_tests` reports the figure).
"""
