"""Primes below ``2**31``, for exact counting modulo primes (``mdd``, the kernel's ties):
products of two residues fit 64-bit integers."""

from __future__ import annotations

from functools import lru_cache


def is_prime(n: int) -> bool:
    """Deterministic Miller-Rabin (these bases decide every ``n`` below 3.4e14)."""
    if n % 2 == 0:
        return n == 2
    d, r = n - 1, 0
    while d % 2 == 0:
        d, r = d // 2, r + 1
    for a in (2, 3, 5, 7, 11, 13, 17):
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


@lru_cache(maxsize=4)
def largest_primes(count: int) -> tuple[int, ...]:
    """The largest ``count`` primes below ``2**31`` (all above ``2**30`` for any count up
    to millions), largest first."""
    found: list[int] = []
    n = 2**31 - 1
    while len(found) < count:
        if is_prime(n):
            found.append(n)
        n -= 2
    return tuple(found)
