"""The behaviour tier: the real ADK Runner with scripted models, in memory and on SQLite.

No subprocess and no network (tests/support/tiers.py guards both); those are integration tests.
"""
