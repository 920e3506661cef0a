"""ADK plugins adk-fluent attaches to the Apps it builds."""
