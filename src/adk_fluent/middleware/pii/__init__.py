"""pii_filter: personal data (emails, phone numbers, card numbers, IBANs, US SSNs, or what a
detector finds) is replaced by a placeholder ("[email]") before a model or a client sees it.

Where it redacts (the same on every supported ADK release unless said):

* `on_user_message_callback`: the user's message (text parts and function responses), as
  `keep_original` says:

  - "nowhere" (default): redacted before ADK stores it: no store, no client, no model ever
    holds the original.
  - "store": the session store keeps the user's message as it was sent, the only place the
    original lives; models and streamed events get it redacted. ADK streams no user-message
    event to a client: the original reaches whoever reads the stored session (adk web's
    history, api_server's session endpoint), which is this policy's point; on ADK 2.x a caller
    of `run_async(yield_user_message=True)` also receives the stored event, original included.
  - "artifact": the original message goes to a session artifact named
    `adk_fluent.pii.<invocation id>.<digest>.json` (ADK's artifact service; no event carries
    an artifact's content) and the store and every client get the redacted message;
    `await original_message(event, artifact_service=..., session=...)` gives it back for a
    stored user event. A Runner without an artifact service cannot keep it: the message is
    redacted all the same (privacy first) and a warning is logged once.
* `after_tool_callback`: a tool's result (a redacted copy is returned, so the tool's own
  objects are never changed; as with any plugin returning a result, the agent's own after-tool
  callbacks are skipped for a call whose result the filter changed). Stored and streamed so.
* `after_model_callback`: the model's reply text, in place (the agent's own after-model
  callbacks still run), before ADK turns it into an event: the stored event, the streamed one
  and an `output_key` all hold the redacted text.
* `before_agent_callback`: the session's events an agent's request is built from, in memory
  only (list entries replaced; the store is untouched): an agent's own before-model callbacks,
  adk-fluent's context views (C.*) among them, run after every plugin and rebuild the request
  from those events; with "store" they would otherwise bring the original back.
* `before_model_callback`: every model request: the text parts and function responses of
  `llm_request.contents` (replaced by redacted copies) and the system instruction (a `{key}`
  template filled from state included).
* `on_event_callback`: the text of every other event a client receives (a custom agent's, a
  state step's). Where ADK stores what this callback returns (1.31+ and 2.x; the probe
  `adk.compat.plugin_edits_are_stored`) the store gets the redacted text too; on 1.25 .. 1.30
  the store keeps such an event as its agent made it. Streamed chunks (SSE partial events)
  lose their text: a value split across chunks ("4111 " + "1111 ...") is whole in none of
  them; the final event, stored and streamed, carries the whole reply redacted.

Not redacted: function-call arguments and framework replies (`adk_request_confirmation`,
`adk_request_credential`, `adk_request_input`), which drive ADK's own flows (a model that
never saw a value cannot put it in a call); state values (a tool writing personal data into
state keeps it there, and a context view's state block shows it); images and files.

Marks: a model-reply event carries `custom_metadata["adk_fluent.pii"]`, counts by kind (never
the values) per section: "user_message" (the invocation's first reply), "tool_results" (the
agent's tool results since its last reply), "request" (what was redacted on the way to this
call: the history in memory, the request, the system instruction), "reply"; another event the
filter changed carries {"event": {...}}.
"""

from adk_fluent.middleware.pii.content import original_artifact_name, original_message
from adk_fluent.middleware.pii.detection import (
    BUILTIN_NAMES,
    BUILTIN_PATTERNS,
    Redactor,
    Span,
    iban_valid,
    luhn_valid,
)
from adk_fluent.middleware.pii.filter import PiiFilter, pii_filter
from adk_fluent.middleware.pii.names import KEEP_ORIGINAL, METADATA_KEY, NAME

__all__ = [
    "BUILTIN_NAMES",
    "BUILTIN_PATTERNS",
    "KEEP_ORIGINAL",
    "METADATA_KEY",
    "NAME",
    "PiiFilter",
    "Redactor",
    "Span",
    "iban_valid",
    "luhn_valid",
    "original_artifact_name",
    "original_message",
    "pii_filter",
]
