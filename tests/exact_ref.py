#!/usr/bin/env python3
"""Writes tests/exact_cases.txt: dot products with their correctly rounded values,
computed in rational arithmetic (fractions), for tests/test_exact.m; and
tests/exact_norm_cases.txt (2-norms and 1-norms, correctly rounded) and
tests/exact_cos_cases.txt (cosines, correctly rounded: "exact" must be within an ulp).

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


def sqrt_exact(q, cls):
    """the correctly rounded square root of q >= 0 (a Fraction), ties to even"""
    p, emin, emax = (53, -1022, 1024) if cls == "d" else (24, -126, 128)
    if q == 0:
        return 0.0
    e = (q.numerator.bit_length() - q.denominator.bit_length()) // 2
    while F(2) ** (2 * e) > q:  # the binade of the root: 2^e <= sqrt(q) < 2^(e+1)
        e -= 1
    while F(2) ** (2 * e + 2) <= q:
        e += 1
    lsb = max(e, emin) - p + 1
    t = q / F(4) ** (lsb - 1)  # sqrt(t) = 2 sqrt(q) / 2^lsb
    r = math.isqrt(t.numerator // t.denominator)
    m, half, exact = r >> 1, r & 1, F(r * r) == t
    if half and (not exact or m % 2 == 1):
        m += 1
    v = F(m) * F(2) ** lsb
    if v >= F(2) ** emax:
        return math.inf
    out = float(v) if cls == "d" else to_single(float(v))
    assert F(out) == v
    return out


def norm_cases():
    out = []
    for cls, p in [("d", 53), ("s", 24)]:
        for k in [0, 7, -40, 300 if cls == "d" else 30, -500 if cls == "d" else -60]:
            s = 2.0 ** k
            # (2^p + 1)^2 = 2^2p + 2^(p+1) + 1 as a sum of squares: the root a tie
            mid = [2.0 ** p * s, 2.0 ** (p // 2) * s, 2.0 ** (p // 2) * s, s]
            if p % 2:
                mid = [2.0 ** p * s, 2.0 ** ((p + 1) // 2) * s, s]
            out.append((cls, mid))  # a tie: to even
            out.append((cls, mid + [s * 2.0 ** -(p + 20)]))  # just past it
            out.append((cls, [3 * s, 4 * s]))
        for _ in range(12):  # spans of exponents, a tiny term that may decide
            n = random.randint(2, 40)
            x = [random.uniform(-1, 1) * 2.0 ** random.randint(-30, 30) for _ in range(n)]
            x.append(random.uniform(-1, 1) * 2.0 ** random.randint(-70, -40))
            if cls == "s":
                x = [to_single(v) for v in x]
            out.append((cls, x))
    top = 1.7976931348623157e308
    out.append(("d", [top]))
    out.append(("d", [top, 2.0 ** 970]))
    out.append(("d", [top, top]))
    out.append(("d", [2.0 ** -1074, 2.0 ** -1074]))
    out.append(("d", [2.0 ** -1074] * 9))
    out.append(("d", [1e-300, 1e-310, -1e-320]))
    out.append(("d", [1e300, 1e300, -1e300, 1e-300]))
    out.append(("s", [3.4e38, 1.0]))
    out.append(("s", [3.4e38, 3.4e38]))
    return out


def cos_cases():
    out = []
    for c in [1e5, 1e12, 1e30, 1e100]:
        x, y = gendot(40, c)
        out.append(("d", x, y))
    for _ in range(6):
        n = random.randint(1, 50)
        x = [random.uniform(-1, 1) * 2.0 ** random.randint(-600, 600) for _ in range(n)]
        y = [random.uniform(-1, 1) * 2.0 ** random.randint(-600, 600) for _ in range(n)]
        out.append(("d", x, y))
    for _ in range(4):
        x, y = gendot(20, 1e10)
        out.append(("s", [to_single(v) for v in x], [to_single(v) for v in y]))
    out.append(("d", [1e200, 1e200], [1e200, 1e200]))
    out.append(("d", [1.0, 2.0 ** -60], [2.0 ** -60, -1.0]))
    return out


def cos_exact(x, y, cls):
    """x.y / sqrt(x.x y.y) correctly rounded: the quotient squared compared exactly"""
    sxy, sxx, syy = exact_dot(x, y), exact_dot(x, x), exact_dot(y, y)
    if sxy == 0:
        return 0.0
    q = sxy * sxy / (sxx * syy)  # cos^2, exact
    r = sqrt_exact(q, "d" if cls == "d" else "s")
    return r if sxy > 0 else -r


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
    lines = []
    for cls, x in norm_cases():
        if cls == "s":
            x = [to_single(v) for v in x]
        two = sqrt_exact(exact_dot(x, x), cls)
        one = round_exact(sum((abs(F(v)) for v in x), F(0)), cls)
        lines.append(" ".join([cls, str(len(x))] + [hx(v, cls) for v in x] + [hx(two, cls), hx(one, cls)]))
    path = __file__.rsplit("/", 1)[0] + "/exact_norm_cases.txt"
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("%d cases to %s" % (len(lines), path))
    lines = []
    for cls, x, y in cos_cases():
        want = cos_exact(x, y, cls)
        lines.append(" ".join([cls, str(len(x))] + [hx(v, cls) for v in x + y] + [hx(want, cls)]))
    path = __file__.rsplit("/", 1)[0] + "/exact_cos_cases.txt"
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("%d cases to %s" % (len(lines), path))


if __name__ == "__main__":
    main()
