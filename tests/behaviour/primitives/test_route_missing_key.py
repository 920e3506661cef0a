"""`Route(key)` when `key` is missing from state, through the real Runner (both ADK ends).

Decided (docs/control-flow.md): a missing key (or None) matches no value rule (`eq`, `ne`,
`contains`, `gt`, ...), but `.when(pred)` predicates are still asked, in rule order, since they
read the whole state; `.otherwise()` takes what no rule took; without it the run ends with
ROUTE_KEY_MISSING. Code ported from adk-fluent 0.x often writes `Route("k").when(pred, a)` where
`pred` does not read `k` at all.
"""

from __future__ import annotations

from adk_fluent import Agent, Route, check_contracts
from adk_fluent.testing import mock_backend
from tests.conftest import fresh_db_service

ASKED: list[dict] = []


def is_vip(state) -> bool:
    ASKED.append(dict(state))
    return bool(state.get("vip"))


def desks() -> Route:
    return (
        Route("tier")
        .eq("gold", Agent("gold_desk").instruct("Serve a gold customer."))
        .when(is_vip, Agent("vip_desk").instruct("Serve a VIP."))
        .otherwise(Agent("front_desk").instruct("Serve anyone."))
    )


BACKEND = {"gold_desk": "Gold.", "vip_desk": "VIP.", "front_desk": "Front."}


async def test_a_when_predicate_decides_though_the_key_is_missing(sqlite_url):
    ASKED.clear()
    route = desks()
    events = await route.run(
        "Hello",
        backend=mock_backend(BACKEND),
        state={"vip": True},
        session_id="w1",
        session_store=sqlite_url,
    )
    assert [(e.author, e.content) for e in events if e.content] == [("vip_desk", "VIP.")]
    assert ASKED and "tier" not in ASKED[0] and ASKED[0]["vip"] is True
    stored = await fresh_db_service(sqlite_url).get_session(
        app_name="adk_fluent_app", user_id="user", session_id="w1"
    )
    assert [e.author for e in stored.events if e.content] == ["user", "vip_desk"]


async def test_value_rules_never_match_a_missing_key():
    ASKED.clear()
    events = await desks().run("Hello", backend=mock_backend(BACKEND), state={"vip": False})
    assert [(e.author, e.content) for e in events if e.content] == [("front_desk", "Front.")]
    assert len(ASKED) == 1  # the predicate was asked, said no, and otherwise took the turn


async def test_the_key_when_set_is_compared_first_in_rule_order():
    ASKED.clear()
    events = await desks().run(
        "Hello", backend=mock_backend(BACKEND), state={"tier": "Gold", "vip": True}
    )
    assert [(e.author, e.content) for e in events if e.content] == [("gold_desk", "Gold.")]
    assert ASKED == []  # the eq rule came first and matched


async def test_no_predicate_takes_it_and_no_otherwise_ends_the_run():
    route = Route("tier").when(is_vip, Agent("vip_desk").instruct("Serve a VIP."))
    events = await route.run("Hello", backend=mock_backend({"vip_desk": "VIP."}), state={"vip": 0})
    assert events[-1].error_code == "ROUTE_KEY_MISSING"
    assert "state has no 'tier'" in events[-1].error_message


def test_the_checker_does_not_require_the_key_of_a_route_of_predicates():
    predicates = Route("tier").when(is_vip, Agent("vip_desk")).otherwise(Agent("front_desk"))
    values = Route("tier").eq("gold", Agent("gold_desk")).otherwise(Agent("front_desk"))
    assert "read-before-write" not in check_contracts(predicates).codes()
    assert "read-before-write" in check_contracts(values).codes()
