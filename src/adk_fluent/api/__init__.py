"""The API room: what users write. Builders (Agent, Pipeline, FanOut, Loop, Route, control
steps), S, C and StateSchema. Builders hand the engine an IR tree and BuildOptions."""
