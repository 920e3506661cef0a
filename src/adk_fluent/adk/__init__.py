"""The ADK room: the only place that knows google.adk's internals. IR -> native agents and App,
the agents for adk-fluent's own steps, plugins, context views, and `compat` (every difference
between ADK releases and every non-public attribute adk-fluent touches)."""
