"""The Gymnasium environment: checker, seeding, rewards, probabilities, vector version."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import mscsp.env  # noqa: E402,F401
from mscsp import InvalidInputError, InvalidTypeError, parse_board, solve  # noqa: E402
from mscsp.env import ENV_ID, MinesweeperEnv, make_vec  # noqa: E402

#: Every configuration the docs show (docs/user-guide.md, docs/seeds.md) or a constructor
#: option opens: each first-click rule with and without probabilities, the guide's own example,
#: the text render mode, the other counting backends, and non-default rewards and truncation.
DOCUMENTED = [
    *(
        {"first_click": rule, "probabilities": probs}
        for rule in ("safe", "opening", "any")
        for probs in (False, True)
    ),
    {"rows": 8, "cols": 8, "mines": 10, "first_click": "opening", "probabilities": True},
    {"rows": 9, "cols": 9, "mines": 10},
    {"render_mode": "ansi", "probabilities": True},
    {"probabilities": True, "backend": "brute"},
    {"probabilities": True, "backend": "mdd"},
    {"invalid_reward": -0.5, "max_steps": 4},
]


@pytest.mark.parametrize(
    "config", DOCUMENTED, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items())
)
def test_check_env_passes_in_every_documented_configuration(config: dict) -> None:
    kwargs = {"rows": 5, "cols": 6, "mines": 4, **config}
    env = gymnasium.make(ENV_ID, **kwargs)
    # The checker reports most findings (no render_fps, a render of the wrong type, ...) as
    # warnings only: as errors here, so that any of them fails the test. The render check runs.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    env.close()


def test_render_fps_declared_and_ansi_render_is_the_board_text() -> None:
    assert MinesweeperEnv.metadata["render_fps"] > 0
    env = MinesweeperEnv(4, 5, 3, render_mode="ansi")
    env.reset(seed=0)
    env.step(0)
    text = env.render()
    assert parse_board(text).cells.tolist() == env.game.view.tolist()
    assert MinesweeperEnv(4, 5, 3).render() is None  # no render mode: nothing drawn


def play_corner_first(env: MinesweeperEnv, seed: int) -> list:
    obs, info = env.reset(seed=seed)
    trace = [obs.copy()]
    done = False
    while not done:
        action = int(np.flatnonzero(info["action_mask"])[0])
        obs, reward, terminated, truncated, info = env.step(action)
        trace.append((obs.copy(), reward))
        done = terminated or truncated
    return trace


def test_same_seed_same_game_and_rewards_sum() -> None:
    env = MinesweeperEnv(6, 6, 5)
    a, b = play_corner_first(env, 3), play_corner_first(env, 3)
    assert all(np.array_equal(x[0], y[0]) for x, y in zip(a[1:], b[1:], strict=True))
    others = [play_corner_first(env, s) for s in range(4, 12)]
    assert any(len(o) != len(a) or not np.array_equal(o[-1][0], a[-1][0]) for o in others)


def test_win_rewards_sum_to_one_and_info() -> None:
    env = MinesweeperEnv(4, 4, 0)  # no mines: the first click opens everything
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(0)
    assert terminated and not truncated and info["won"] and reward == pytest.approx(1.0)
    assert info["revealed"] == 16 and (obs >= 0).all()


def test_mine_is_minus_one_and_invalid_click_penalised() -> None:
    env = MinesweeperEnv(3, 3, 8)  # safe first click: every other cell is a mine
    env.reset(seed=1)
    obs, reward, *_ = env.step(4)
    assert reward == pytest.approx(1 / 1)  # the single safe cell wins the game
    env = MinesweeperEnv(4, 4, 3, invalid_reward=-0.5)
    obs, info = env.reset(seed=2)
    obs, _, _, _, info = env.step(0)
    if not info["won"]:
        revealed = int(np.flatnonzero(obs.ravel() >= 0)[0])
        _, reward, terminated, _, info = env.step(revealed)
        assert reward == -0.5 and not terminated and info["opened"] == 0
    for seed in range(20):
        env.reset(seed=seed)
        env.step(0)
        mines = np.flatnonzero(env.game.mine.ravel())
        if not env.game.over and len(mines):
            _, reward, terminated, _, info = env.step(int(mines[0]))
            assert reward == -1.0 and terminated and info["lost"]
            break


def test_probabilities_are_the_exact_ones() -> None:
    env = MinesweeperEnv(6, 6, 6, probabilities=True)
    obs, info = env.reset(seed=5)
    assert np.allclose(info["probabilities"], 6 / 36)
    obs, _, terminated, _, info = env.step(0)
    assert not terminated  # seed 5: the first click opens a region, the game goes on
    expected = solve(env.game.board()).probabilities
    covered = obs == -1
    assert np.allclose(info["probabilities"][covered], expected[covered])
    assert (info["probabilities"][~covered] == 0).all()  # revealed cells are safe


def play_with_probabilities(seed: int) -> list[dict]:
    """The infos of one game on 5x5/5, always clicking the safest covered cell."""
    env = MinesweeperEnv(5, 5, 5, first_click="any", probabilities=True)
    _, info = env.reset(seed=seed)
    infos, done = [info], False
    while not done:
        probs = np.where(info["action_mask"].reshape(5, 5) == 1, info["probabilities"], 2.0)
        _, _, terminated, truncated, info = env.step(int(np.argmin(probs)))
        infos.append(info)
        done = terminated or truncated
    infos[-1]["layout"] = env.game.mine
    return infos


def test_probability_info_is_finite_and_json_at_every_step() -> None:
    outcomes = set()
    for seed in range(12):
        infos = play_with_probabilities(seed)
        for info in infos:
            probs = info["probabilities"]
            assert np.isfinite(probs).all() and ((probs >= 0) & (probs <= 1)).all()
            plain = {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in info.items()}
            json.dumps(plain, allow_nan=False)  # strict JSON: raises on NaN or infinity
        last = infos[-1]
        # Once over, the game is decided: the probabilities are its layout.
        assert np.array_equal(last["probabilities"], last["layout"].astype(float))
        outcomes.add("won" if last["won"] else "lost")
    assert outcomes == {"won", "lost"}  # both endings were checked


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"max_steps": 0}, InvalidInputError),
        ({"max_steps": "10"}, InvalidTypeError),
        ({"invalid_reward": float("nan")}, InvalidInputError),
        ({"invalid_reward": "-1"}, InvalidTypeError),
        ({"probabilities": "yes"}, InvalidTypeError),
        ({"render_mode": "human"}, InvalidInputError),
        ({"probabilities": True, "backend": "nope"}, InvalidInputError),
    ],
)
def test_bad_options_are_refused_in_one_line(kwargs: dict, error: type) -> None:
    with pytest.raises(error) as caught:
        MinesweeperEnv(4, 4, 3, **kwargs)
    assert "\n" not in str(caught.value) and str(caught.value)


def test_truncation_and_bad_input() -> None:
    env = MinesweeperEnv(4, 4, 3, max_steps=1)
    env.reset(seed=0)
    _, _, terminated, truncated, _ = env.step(0)
    assert terminated or truncated
    with pytest.raises(InvalidInputError):
        MinesweeperEnv(3, 3, 20)
    with pytest.raises(InvalidInputError):
        MinesweeperEnv(3, 3, 2, first_click="sometimes")
    env = MinesweeperEnv(3, 3, 2)
    env.reset(seed=0)
    with pytest.raises(InvalidInputError):
        env.step(9)


def test_make_with_module_prefix_registers_the_id() -> None:
    env = gymnasium.make(f"mscsp.env:{ENV_ID}", rows=4, cols=4, mines=2)
    assert env.spec.id == ENV_ID and env.unwrapped.action_space.n == 16


def test_vector_env_steps_in_batch() -> None:
    vec = make_vec(3, seed=7, rows=5, cols=5, mines=3, probabilities=True)
    assert vec.observation_space.shape == (3, 5, 5)
    obs, rewards, terminated, truncated, info = vec.step(np.array([0, 12, 24]))
    assert obs.shape == (3, 5, 5) and rewards.shape == (3,)
    assert info["revealed"].shape == (3,)
    # Finite probabilities stack into one float array, one board per env.
    probs = info["probabilities"]
    assert probs.dtype == np.float64 and probs.shape == (3, 5, 5) and np.isfinite(probs).all()
    assert (probs[obs >= 0] == 0).all()
    vec.close()
