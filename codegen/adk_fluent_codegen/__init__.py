"""adk-fluent's code generator: scan google-adk, render templates, diff versions, gate CI.

Import-light on purpose: the heavy tools (jinja2, libcst, ruff) are imported by the
modules that need them, so `adk-fluent-codegen --help` starts fast.
"""

MANIFEST_SCHEMA_VERSION = 1
