#!/usr/bin/env python3
"""Writes tests/exact_cases.txt: dot products with their correctly rounded values,
computed in rational arithmetic (fractions), for tests/test_exact.m.

Each case is one line: class (d or s), n, the n elements of x, the n of y, then the
exact sum of x .* y rounded once to nearest (ties to even) in that class; every number
as the hex of its IEEE bits.  Cases: Ogita-Rump-Oishi's GenDot up to condition 1e300,
cancellation across the whole exponent range, ties at the last bit (decided by a term
far below it, or not), single data where rounding to double first gives a different
single, subnormal and overflowing results.  Rerun it (python3 tests/exact_ref.py) after
changing the cases; the seed fixes them.
"""
import math
import random
import struct
from fractions import Fraction as F

random.seed(20261127)


def hx(v, cls):
    if cls == "d":
        return "%016x" % struct.unpack("<Q", struct.pack("<d", v))[0]
    return "%08x" % struct.unpack("<I", struct.pack("<f", v))[0]


def to_single(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def round_exact(q, cls):
    """q (a Fraction) to the nearest double or single, ties to even"""
    p, emin, emax = (53, -1022, 1024) if cls == "d" else (24, -126, 128)
    if q == 0:
        return 0.0
    neg = q < 0
    a = -q if neg else q
    e = math.floor(math.log2(a.numerator) - math.log2(a.denominator))
    while F(2) ** e > a:  # the exact binade: 2^e <= a < 2^(e+1)
        e -= 1
    while F(2) ** (e + 1) <= a:
        e += 1
    lsb = max(e, emin) - p + 1
    m = a / F(2) ** lsb
    r = math.floor(m)
    rest = m - r
    if rest > F(1, 2) or (rest == F(1, 2) and r % 2 == 1):
        r += 1
    v = F(r) * F(2) ** lsb
    if v >= F(2) ** emax:
        out = math.inf
    else:
        out = float(v) if cls == "d" else to_single(float(v))
        assert F(out) == v
    return -out if neg else out


def exact_dot(x, y):
    return sum((F(a) * F(b) for a, b in zip(x, y)), F(0))


def gendot(n, cond):
    """Ogita, Rump and Oishi, Accurate sum and dot product (2005), Algorithm 6.1"""
    n2 = n // 2
    b = math.log2(cond)
    e = [round(random.random() * b / 2) for _ in range(n2)]
    e[0] = round(b / 2) + 1
    e[-1] = 0
    x = [(2 * random.random() - 1) * 2.0 ** k for k in e]
    y = [(2 * random.random() - 1) * 2.0 ** k for k in e]
    steps = [round(b / 2 - i * (b / 2) / (n - n2 - 1)) for i in range(n - n2)]
    for k in steps:
        xi = (2 * random.random() - 1) * 2.0 ** k
        s = exact_dot(x, y)
        yi = ((2 * random.random() - 1) * 2.0 ** k - float(s)) / xi
        x.append(xi)
        y.append(yi)
    idx = list(range(n))
    random.shuffle(idx)
    return [x[i] for i in idx], [y[i] for i in idx]


def cases():
    out = []
    for c in [1e10, 1e30, 1e60, 1e100, 1e150, 1e200, 1e250, 1e300]:
        for n in [20, 100]:
            out.append(("d",) + gendot(n, c))
    # cancellation across the exponent range: big pairs that cancel exactly, small rests
    for _ in range(12):
        x, y = [], []
        for _ in range(8):
            a = random.uniform(1, 2) * 2.0 ** random.randint(-1000, 1000)
            b = random.uniform(1, 2) * 2.0 ** random.randint(-1000, 1000)
            if abs(math.log2(a) + math.log2(b)) > 1020:
                b = 1.0
            x += [a, a]
            y += [b, -b]
        for _ in range(3):
            x.append(random.uniform(-1, 1) * 2.0 ** random.randint(-1074, -900))
            y.append(random.uniform(-1, 1) * 2.0 ** random.randint(-100, 100))
        out.append(("d", x, y))
    out.append(("d", [1e200, 1e200, 3.0], [1e200, -1e200, 0.5]))
    out.append(("d", [1e300, 1e300, -1e300, 2.0], [1e300, 1e300, 2e300, 0.25]))
    # ties at the last bit: 1 + half an ulp, with and without a far term deciding
    for k in range(10):
        s = random.choice([1.0, -1.0]) * 2.0 ** random.randint(-500, 500)
        u = s * 2.0 ** -53
        far = u * 2.0 ** -random.randint(60, 400)
        odd = s * (1 + 2.0 ** -52)
        for base in [s, odd]:
            out.append(("d", [base, u], [1.0, 1.0]))
            out.append(("d", [base, u, far], [1.0, 1.0, 1.0]))
            out.append(("d", [base, u, -far], [1.0, 1.0, 1.0]))
    # singles: the double of the sum rounds to a single tie that the exact sum is not
    for k in range(10):
        s = 2.0 ** random.randint(-60, 60)
        x = [s, s * 2.0 ** -24, s * 2.0 ** -random.randint(54, 80)]
        y = [1.0, 1.0, random.choice([1.0, -1.0])]
        out.append(("s", x, y))
        out.append(("s", [s * (1 + 2.0 ** -23)] + x[1:], y))
    for _ in range(6):  # GenDot in single
        x, y = gendot(20, 1e12)
        x = [to_single(v) for v in x]
        y = [to_single(v) for v in y]
        out.append(("s", x, y))
    # subnormal results, and an overflowing one
    for _ in range(8):
        x = [random.uniform(-1, 1) * 2.0 ** random.randint(-560, -520) for _ in range(5)]
        y = [random.uniform(-1, 1) * 2.0 ** random.randint(-560, -520) for _ in range(5)]
        out.append(("d", x, y))
        xs = [to_single(random.uniform(-1, 1) * 2.0 ** random.randint(-80, -70)) for _ in range(5)]
        ys = [to_single(random.uniform(-1, 1) * 2.0 ** random.randint(-80, -70)) for _ in range(5)]
        out.append(("s", xs, ys))
    out.append(("d", [1e300, 1e300], [1e10, 1e10]))
    out.append(("s", [3e38, 3e38], [1.0, 1.0]))
    return out


def main():
    lines = []
    for cls, x, y in cases():
        if cls == "s":
            x = [to_single(v) for v in x]
            y = [to_single(v) for v in y]
        want = round_exact(exact_dot(x, y), cls)
        lines.append(" ".join([cls, str(len(x))] + [hx(v, cls) for v in x + y] + [hx(want, cls)]))
    path = __file__.rsplit("/", 1)[0] + "/exact_cases.txt"
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("%d cases to %s" % (len(lines), path))


if __name__ == "__main__":
    main()
