"""Exact ties on the kernel's floating-point map (numba; imported by :mod:`mscsp.engine._kernel`).

Where a position's counts leave 64 bits, the kernel makes its probability map in floating
point (:func:`mscsp.engine._kernel._float_odds`), close enough to order any two cells whose exact
odds differ, but not to tell two equal odds from two very close ones. Equal odds across
groups are common (two sides of a symmetric pattern), and the tie-break (fewest
neighbours, then row-major) must see them as equal. Every cell's odds are ``N / W`` with
one ``W`` for the whole position, so two odds are equal exactly when their numerators
are; the numerators are at most ``W``, which is below ``2**bits`` for a bound the kernel
knows, so comparing them modulo enough primes (their product above ``2**bits``, by the
Chinese remainder theorem) decides equality exactly, in 64-bit integers. Most pairs need no
prime: two groups fixed by the reduction, or two groups of one component counted alike,
show their equality (or not) in the counts, and one prime tells almost any other two
different numerators apart.
"""

from __future__ import annotations

import numpy as np

from mscsp.primes import largest_primes

from ._jit import njit

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
def _binomials(n, high, count, p):
    """``C(n, high - s) mod p`` for ``s`` in ``0 .. count - 1`` (zero where ``high - s`` is
    not in ``0 .. n``; ``p`` a prime above ``n``): one inverse for the first, then each
    from the one before, the divisors inverted together (one more inverse)."""
    out = np.zeros(count, dtype=np.int64)
    top = min(high, n)
    bottom = max(high - count + 1, 0)
    if bottom > top:
        return out
    num = 1
    den = 1
    for i in range(bottom):  # C(n, bottom) = n (n-1) ... (n-bottom+1) / bottom!
        num = num * (n - i) % p
        den = den * (i + 1) % p
    value = num * _power(den, p - 2, p) % p
    # C(n, m + 1) = C(n, m) (n - m) / (m + 1): the inverses of bottom+1 .. top at once.
    steps = top - bottom
    prefix = np.ones(steps + 1, dtype=np.int64)
    for i in range(steps):
        prefix[i + 1] = prefix[i] * (bottom + 1 + i) % p
    inverse = _power(prefix[steps], p - 2, p)  # 1 / ((bottom+1) ... top)
    inverses = np.empty(steps, dtype=np.int64)
    for i in range(steps - 1, -1, -1):
        inverses[i] = inverse * prefix[i] % p
        inverse = inverse * (bottom + 1 + i) % p
    out[high - bottom] = value
    for m in range(bottom, top):
        value = value * (n - m) % p * inverses[m - bottom] % p
        out[high - m - 1] = value
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
    ``count``: the groups, components and counts of ``mscsp.engine._kernel._finish``."""
    groups, comps, comp_counts, group_counts, first, last = count
    size, lo, hi, cell_start, cell_list = groups
    n_comp, comp_start, comp_groups, local, comp_of = comps
    n_groups = len(lo)
    everything = np.ones(1, dtype=np.int64)
    for k in range(n_comp):
        everything = _convolve_mod(everything, comp_counts[k, first[k] : last[k] + 1] % p, p)
    # free_ways[s]: the layouts of the cells next to no number with the mines the frontier's
    # s-th count leaves them; a given one of those cells is a mine in m / n_free of them.
    free_ways = _binomials(n_free, left - lowest, len(everything), p)
    per_cell = _power(n_free, p - 2, p) if n_free else 0
    weight = np.int64(0)
    free_num = np.int64(0)
    for s in range(len(everything)):
        m = left - lowest - s
        weight = (weight + everything[s] * free_ways[s]) % p
        free_num = (free_num + everything[s] * free_ways[s] % p * (m % p) % p * per_cell) % p
    # Each component's layouts with x mines, times those of everything else (once each).
    ways = np.zeros((max(n_comp, 1), comp_counts.shape[1]), dtype=np.int64)
    has_ways = np.zeros(max(n_comp, 1), dtype=np.bool_)
    out = np.empty(len(cls), dtype=np.int64)
    for c in range(len(cls)):
        g = cls[c]
        if g == n_groups:
            out[c] = free_num
            continue
        if lo[g] == hi[g]:
            out[c] = weight * lo[g] % p * _power(size[g], p - 2, p) % p
            continue
        k = comp_of[g]
        if not has_ways[k]:
            has_ways[k] = True
            others = np.ones(1, dtype=np.int64)
            for j in range(n_comp):
                if j != k:
                    others = _convolve_mod(others, comp_counts[j, first[j] : last[j] + 1] % p, p)
            for x in range(last[k] - first[k] + 1):
                for j in range(len(others)):
                    ways[k, x] = (ways[k, x] + others[j] * free_ways[x + j]) % p
        num = np.int64(0)
        for x in range(last[k] - first[k] + 1):
            num = (num + group_counts[g, first[k] + x] % p * ways[k, x]) % p
        out[c] = num
    return out


@njit(cache=True)
def _evident(cls, count, agree):
    """Decides the pairs of classes whose equality the counts show without arithmetic
    (``agree[a, b]`` for ``b < a``): two fixed groups (odds ``lo / size`` each), or two
    groups of one component with the same counts per cell (equal numerators). Returns which
    pairs are left undecided."""
    groups, comps, _, group_counts, first, last = count
    size, lo, hi = groups[0], groups[1], groups[2]
    comp_of = comps[4]
    n_groups = len(lo)
    open_ = np.ones((len(cls), len(cls)), dtype=np.bool_)
    for a in range(len(cls)):
        ga = cls[a]
        for b in range(a):
            gb = cls[b]
            if ga == n_groups or gb == n_groups:
                continue
            if lo[ga] == hi[ga] and lo[gb] == hi[gb]:
                agree[a, b] = lo[ga] * size[gb] == lo[gb] * size[ga]
                open_[a, b] = False
            elif lo[ga] < hi[ga] and lo[gb] < hi[gb] and comp_of[ga] == comp_of[gb]:
                k = comp_of[ga]
                same = True
                for x in range(first[k], last[k] + 1):
                    same &= group_counts[ga, x] == group_counts[gb, x]
                if same:
                    agree[a, b] = True
                    open_[a, b] = False
    return open_


@njit(cache=True)
def merge_ties(cls, bits, n_free, left, lowest, count):
    """Which of the classes ``cls`` have equal odds: for each, the index in ``cls`` of the
    first class with the same numerator (its own where none before it), or an empty array
    where a pair needs the primes and numerators below ``2**bits`` are beyond them."""
    wanted = int(bits) // PRIME_BITS + 2
    same = np.arange(len(cls))
    agree = np.ones((len(cls), len(cls)), dtype=np.bool_)
    open_ = _evident(cls, count, agree)
    # The other pairs agree while their numerators do modulo every prime so far: one prime
    # tells almost every two different numerators apart, so the next is taken only while
    # some open pair still agrees.
    for t in range(wanted):
        undecided = False
        for a in range(len(cls)):
            for b in range(a):
                undecided |= open_[a, b] and agree[a, b]
        if not undecided:
            break
        if wanted > len(PRIMES):
            return np.empty(0, dtype=np.int64)
        residues = _residues(cls, n_free, left, lowest, count, PRIMES[t])
        for a in range(len(cls)):
            for b in range(a):
                if open_[a, b]:
                    agree[a, b] &= residues[a] == residues[b]
    for a in range(len(cls)):
        for b in range(a):
            if same[b] == b and agree[a, b]:
                same[a] = b
                break
    return same
