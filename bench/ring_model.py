#!/usr/bin/env python3
"""A model of the staging ring's pipeline (cuda/gpudot_cuda.cu, RingWalk), to ask what a
piece schedule can gain before spending device time on it.  The threads pack the call's
bytes in order at P bytes/us, but not into a slot whose last copies have not finished; each
piece's copy is queued q us after its last byte is packed and runs FIFO on the copy engine
at C bytes/us plus o us.  Time = the last copy's end + a fixed tail (last kernel, result,
syncs).  Defaults: the H100 machine's measured rates (pack 62 GB/s with 15 threads,
bench/host_bw; pinned copy 55 GB/s).  Prints the model's time / the pinned floor for the
current schedule (pieces doubling from 256 KiB in the first chunk, 4 MiB after), uniform
pieces, and pieces growing by a factor g across the call.
    python3 bench/ring_model.py
(bench/results/h100-ring-copies-tail-ab-2026-11-23.txt compares it with ring_bench.)"""
K, M = 1024, 1024 * 1024


def model(total, sched, P=62e3, C=55e3, o=2.0, q=4.0, slot=4 * M, nslots=3, t0=10.0, tail=20.0):
    nch = (total + slot - 1) // slot
    pieces = [(c, s) for c in range(nch) for s in sched(c, min(slot, total - c * slot))]
    t, ce, last_copy = t0, 0.0, {}
    for c, s in pieces:
        if c >= nslots:  # the slot is free once chunk c - nslots is copied
            t = max(t, last_copy[c - nslots] + q)
        t += s / P
        ce = max(t + q, ce) + o + s / C
        last_copy[c] = ce
    return ce + tail


def split(cs, sizes):
    out, o = [], 0
    for s in sizes:
        if o >= cs:
            break
        out.append(min(s, cs - o))
        o += out[-1]
    return out


def current(c, cs, first=256 * K, piece=4 * M):
    sizes, s = [], (first if c == 0 else piece)
    while sum(sizes) < cs:
        sizes.append(s)
        s = min(2 * s, piece)
    return split(cs, sizes)


def uniform(u):
    return lambda c, cs: split(cs, [u] * (cs // u + 1))


def growing(g, first=256 * K, cap=4 * M):
    st = {}

    def f(c, cs):
        if c == 0:
            st["s"] = first
        sizes = []
        while sum(sizes) < cs:
            sizes.append(int(st["s"]))
            st["s"] = min(st["s"] * g, cap)
        return split(cs, sizes)
    return f


if __name__ == "__main__":
    for cls, es in (("single", 4), ("double", 8)):
        for e in (20, 22, 24, 26):
            total = 2 * 2 ** e * es
            floor = total / 55e3
            rows = [("current", current)] + [("u%dK" % (u // K), uniform(u)) for u in (512 * K, M, 2 * M, 4 * M)] \
                + [("g%.2f" % g, growing(g)) for g in (1.1, 1.25, 1.5, 2.0)]
            print("%s 2^%d: " % (cls, e) + "  ".join("%s %.2f" % (n, model(total, f) / floor) for n, f in rows))
