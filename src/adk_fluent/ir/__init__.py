"""The IR room: the frozen tree and the plain records it is made of (nodes, typed S steps,
state-key rules, instruction keys, context specs, build options). Imports nothing above it."""
