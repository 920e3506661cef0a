"""The integration tier: subprocesses (the CLIs, ruff, lint-imports), servers on 127.0.0.1
(`adk api_server`), and tools outside the Python process."""
