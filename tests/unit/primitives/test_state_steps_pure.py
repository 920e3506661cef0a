"""Every kind of S step is one record whose run-time half and checker half agree (the steps
through the Runner are in tests/behaviour/primitives/test_state_steps.py)."""

from __future__ import annotations

from adk_fluent import S


def test_every_kind_of_step_is_one_record_with_run_time_and_checker_halves():
    """Each S / C step is one typed record: what it does and what it touches live together."""
    import inspect

    from adk_fluent.ir import steps

    kinds = [
        cls
        for cls in vars(steps).values()
        if inspect.isclass(cls) and issubclass(cls, steps.Step) and cls is not steps.Step
    ]
    assert {cls.kind for cls in kinds} == {
        "set",
        "default",
        "merge",
        "pick",
        "drop",
        "rename",
        "transform",
        "compute",
        "guard",
        "log",
        "capture",
        "capture_turns",
        "function",
    }
    for cls in kinds:
        assert not inspect.isabstract(cls), f"{cls.__name__} lacks apply() or effects()"


def test_a_steps_declared_effects_match_what_it_does_at_run_time():
    """What the checker assumes a step writes is what its run-time half writes."""
    from types import SimpleNamespace

    state = {"a": 1, "b": 2, "old": "x", "k": 5}
    run = SimpleNamespace(user_text="hi", events=[])
    for built in (
        S.set(n=1),
        S.default(a=9, z=0),
        S.merge("a", "b", into="ab"),
        S.rename(old="new"),
        S.transform("k", lambda v: v + 1),
        S.compute(total=lambda s: s["a"] + s["b"]),
        S.capture("question"),
        S.drop("a"),
    ):
        step = built.step
        delta = step.apply(state, run, built.name)
        effects = step.effects()
        written = {w.key for w in effects.writes if not w.delete} | {n for _, n in effects.renames}
        deleted = {w.key for w in effects.writes if w.delete} | {o for o, _ in effects.renames}
        assert {k for k, v in delta.items() if v is not None} <= written, built.name
        assert {k for k, v in delta.items() if v is None} <= deleted, built.name
