"""The Gymnasium environment: checker, seeding, rewards, probabilities, vector version."""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import mscsp.env  # noqa: E402,F401
from mscsp import InvalidInputError, solve  # noqa: E402
from mscsp.env import ENV_ID, MinesweeperEnv, make_vec  # noqa: E402


@pytest.mark.parametrize("rule", ["safe", "opening", "any"])
def test_check_env_passes(rule: str) -> None:
    env = gymnasium.make(ENV_ID, rows=5, cols=6, mines=4, first_click=rule)
    check_env(env.unwrapped, skip_render_check=True)


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
    if not terminated:
        expected = solve(env.game.board()).probabilities
        assert np.array_equal(np.isnan(expected), np.isnan(info["probabilities"]))
        assert np.allclose(np.nan_to_num(expected), np.nan_to_num(info["probabilities"]))


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
    vec = make_vec(3, seed=7, rows=5, cols=5, mines=3)
    assert vec.observation_space.shape == (3, 5, 5)
    obs, rewards, terminated, truncated, info = vec.step(np.array([0, 12, 24]))
    assert obs.shape == (3, 5, 5) and rewards.shape == (3,)
    assert info["revealed"].shape == (3,)
    vec.close()
