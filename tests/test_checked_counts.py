"""A foreign program's counts are checked, not trusted (mscsp.backends.checked)."""

from __future__ import annotations

import pytest

from mscsp.backends.brute import BruteBackend
from mscsp.backends.checked import check_count
from mscsp.constraints import Component, ComponentCount
from mscsp.errors import WrongCountError

#: 15 cells in three groups under two numbers.
LARGE = Component(sizes=(5, 7, 3), constraints=(((0, 1), 6), ((1, 2), 5)))


def true_count() -> ComponentCount:
    return BruteBackend().count(LARGE)


def changed(count: ComponentCount, group: int | None, k: int, by: int) -> ComponentCount:
    """``count`` with ``by`` added to ``counts[k]`` (group None) or a group's row."""
    counts, rows = list(count.counts), [list(row) for row in count.cell_counts]
    if group is None:
        counts[k] += by
    else:
        rows[group][k] += by
    return ComponentCount(tuple(counts), tuple(map(tuple, rows)))


def test_the_true_count_passes_with_and_without_the_recount():
    check_count(LARGE, true_count(), "test")
    check_count(LARGE, true_count(), "test", recount_cells=0)


def test_one_group_off_by_one_breaks_the_identity_without_a_recount():
    count = true_count()
    k = max(range(len(count.counts)), key=lambda k: count.counts[k])
    wrong = changed(count, 0, k, 1)
    with pytest.raises(WrongCountError, match="contradict each other"):
        check_count(LARGE, wrong, "test", recount_cells=0)


def test_every_count_doubled_is_caught_by_the_recount_alone():
    count = true_count()
    doubled = ComponentCount(
        tuple(2 * c for c in count.counts),
        tuple(tuple(2 * c for c in row) for row in count.cell_counts),
    )
    check_count(LARGE, doubled, "test", recount_cells=0)  # (every identity still holds)
    with pytest.raises(WrongCountError, match="disagrees with mscsp's own count"):
        check_count(LARGE, doubled, "test")


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda c: ComponentCount(c.counts[:-1], c.cell_counts), "wrong shape"),
        (lambda c: ComponentCount(c.counts, c.cell_counts[:-1]), "wrong shape"),
        (lambda c: changed(c, None, 1, 10**6), "outside"),
        (lambda c: changed(c, None, 3, -(10**6)), "outside"),
        (lambda c: changed(c, 1, 0, 1), "outside"),
    ],
)
def test_counts_out_of_shape_or_bounds_are_refused(build, message):
    with pytest.raises(WrongCountError, match=message):
        check_count(LARGE, build(true_count()), "counter 'x'")
