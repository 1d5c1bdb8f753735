"""The state machine of a dictation run, on its own: one table (run_states.TRANSITIONS)."""

from __future__ import annotations

from dictate.ui.run_states import TRANSITIONS, State, Trigger, next_state, path_to


def _reachable(start: State) -> set[State]:
    seen, todo = {start}, [start]
    while todo:
        state = todo.pop()
        for trigger in Trigger:
            after = next_state(state, trigger)
            if after is not None and after not in seen:
                seen.add(after)
                todo.append(after)
    return seen


def test_every_state_is_reached_from_idle_and_leads_back_to_it() -> None:
    assert _reachable(State.IDLE) == set(State)
    for state in State:
        assert State.IDLE in _reachable(state), state


def test_a_run_starts_only_from_idle_and_stop_never_starts_one() -> None:
    assert [s for s in State if next_state(s, Trigger.START) is not None] == [State.IDLE]
    for state in State:
        assert next_state(state, Trigger.STOP) in (None, state, State.STOPPING)


def test_settings_ok_never_changes_the_state_of_a_run() -> None:
    """Settings > OK while idle, loading, listening or finishing: the run goes on as it was
    (it keeps its settings; the next run takes the new ones)."""
    for state in State:
        assert next_state(state, Trigger.SETTINGS) == state


def test_only_the_run_s_end_or_a_failed_start_makes_it_idle() -> None:
    to_idle = {(s, t) for (s, t), after in TRANSITIONS.items() if after is State.IDLE}
    assert {t for _, t in to_idle} == {Trigger.FINISHED, Trigger.FAILED, Trigger.SETTINGS}
    assert all(s is State.IDLE for s, t in to_idle if t is Trigger.SETTINGS)


def test_what_the_table_does_not_hold_is_ignored() -> None:
    assert next_state(State.IDLE, Trigger.FINISHED) is None  # a late end
    assert next_state(State.LISTENING, Trigger.START) is None  # a second Start
    assert next_state(State.IDLE, Trigger.READY) is None


def test_the_shortest_way_between_states_follows_the_table() -> None:
    assert path_to(State.IDLE, State.IDLE) == []
    assert path_to(State.IDLE, State.LISTENING) == [Trigger.START, Trigger.READY]
    assert path_to(State.STARTING, State.IDLE) == [Trigger.FAILED]
    for state in State:
        for target in State:
            path = path_to(state, target)
            assert path is not None, (state, target)
            for trigger in path:
                after = next_state(state, trigger)
                assert after is not None
                state = after
            assert state == target
