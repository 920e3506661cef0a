"""Module-level ADK agents (BaseAgent subclasses) for adk-fluent's own nodes."""
