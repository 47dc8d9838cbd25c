"""Exact ties on the kernel's floating-point map (numba; imported by :mod:`mscsp._kernel`).

Where a position's counts leave 64 bits, the kernel makes its probability map in floating
point (:func:`mscsp._kernel._float_odds`), close enough to order any two cells whose exact
odds differ, but not to tell two equal odds from two very close ones. Equal odds across
groups are common (two sides of a symmetric pattern), and the tie-break (fewest
neighbours, then row-major) must see them as equal. Every cell's odds are ``N / W`` with
one ``W`` for the whole position, so two odds are equal exactly when their numerators
are; the numerators are at most ``W``, which is below ``2**bits`` for a bound the kernel
knows, so comparing them modulo enough primes (their product above ``2**bits``, by the
Chinese remainder theorem) decides equality exactly, in 64-bit integers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .primes import largest_primes

#: Bits each prime adds to the modulus (all lie in (2**30, 2**31): products of two
#: residues fit 64 bits).
PRIME_BITS = 30
#: Enough primes for any board the kernel plays (numerators below 2**4096, and a margin).
PRIMES = np.array(largest_primes(4200 // PRIME_BITS), dtype=np.int64)


@njit(cache=True)
def _power(a, e, p):
    result = 1
    a %= p
    while e:
        if e & 1:
            result = result * a % p
        a = a * a % p
        e >>= 1
    return result


@njit(cache=True)
def _binomials(n, p):
    """``C(n, m) mod p`` for every ``m`` in ``0 .. n`` (``p`` a prime above ``n``)."""
    fact = np.ones(n + 1, dtype=np.int64)
    for i in range(1, n + 1):
        fact[i] = fact[i - 1] * i % p
    inverse = np.ones(n + 1, dtype=np.int64)  # 1 / i!
    inverse[n] = _power(fact[n], p - 2, p)
    for i in range(n, 0, -1):
        inverse[i - 1] = inverse[i] * i % p
    out = np.empty(n + 1, dtype=np.int64)
    for m in range(n + 1):
        out[m] = fact[n] * inverse[m] % p * inverse[n - m] % p
    return out


@njit(cache=True)
def _convolve_mod(a, b, p):
    out = np.zeros(len(a) + len(b) - 1, dtype=np.int64)
    for i in range(len(a)):
        if a[i]:
            for j in range(len(b)):
                out[i + j] = (out[i + j] + a[i] * b[j]) % p
    return out


@njit(cache=True)
def _residues(cls, n_free, left, lowest, count, p):
    """Each class's numerator modulo ``p``: a group of a component, the cells next to no
    number (class ``n_groups``) or a fixed group (``lo`` of its ``size`` cells mined).
    ``count``: the groups, components and counts of ``mscsp._kernel._finish``."""
    groups, comps, comp_counts, group_counts, first, last = count
    size, lo, hi, cell_start, cell_list = groups
    n_comp, comp_start, comp_groups, local, comp_of = comps
    n_groups = len(lo)
    free_binom = _binomials(n_free, p)
    below = _binomials(n_free - 1, p) if n_free else np.zeros(1, dtype=np.int64)
    everything = np.ones(1, dtype=np.int64)
    for k in range(n_comp):
        everything = _convolve_mod(everything, comp_counts[k, first[k] : last[k] + 1] % p, p)
    weight = 0
    free_num = 0
    for s in range(len(everything)):
        m = left - lowest - s
        if 0 <= m <= n_free:
            weight = (weight + everything[s] * free_binom[m]) % p
            if m >= 1:
                free_num = (free_num + everything[s] * below[m - 1]) % p
    out = np.empty(len(cls), dtype=np.int64)
    for c in range(len(cls)):
        g = cls[c]
        if g == n_groups:
            out[c] = free_num
        elif lo[g] == hi[g]:
            out[c] = weight * lo[g] % p * _power(size[g], p - 2, p) % p
        else:
            k = comp_of[g]
            others = np.ones(1, dtype=np.int64)
            for j in range(n_comp):
                if j != k:
                    others = _convolve_mod(others, comp_counts[j, first[j] : last[j] + 1] % p, p)
            num = 0
            for x in range(last[k] - first[k] + 1):
                ways = 0
                for j in range(len(others)):
                    m = left - lowest - x - j
                    if 0 <= m <= n_free:
                        ways = (ways + others[j] * free_binom[m]) % p
                num = (num + group_counts[g, first[k] + x] % p * ways) % p
            out[c] = num
    return out


@njit(cache=True)
def merge_ties(cls, bits, n_free, left, lowest, count):
    """Which of the classes ``cls`` have equal odds: for each, the index in ``cls`` of the
    first class with the same numerator (its own where none before it), or an empty array
    where numerators below ``2**bits`` are beyond what the primes decide."""
    wanted = int(bits) // PRIME_BITS + 2
    same = np.arange(len(cls))
    if wanted > len(PRIMES):
        return np.empty(0, dtype=np.int64)
    residues = np.empty((wanted, len(cls)), dtype=np.int64)
    for t in range(wanted):
        residues[t] = _residues(cls, n_free, left, lowest, count, PRIMES[t])
    for a in range(len(cls)):
        for b in range(a):
            if same[b] == b:
                equal = True
                for t in range(wanted):
                    if residues[t, a] != residues[t, b]:
                        equal = False
                        break
                if equal:
                    same[a] = b
                    break
    return same
