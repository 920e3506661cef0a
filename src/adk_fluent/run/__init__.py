"""The run room: the engine (IR + options -> App, Runner, runs), session stores, AgentEvent."""
