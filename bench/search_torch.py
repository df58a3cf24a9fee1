"""The peers of bench/search_bench.m in the same run: PyTorch on the same GPU, FAISS's
flat-index method (a matrix product, then topk) on 768 x 10^6 float32 (and float64)
vectors, TF32 off.  Each time: the median of single calls, synchronised.  CSV rows as
search_bench.m's to BENCH_CSV (appended) or stdout."""
import os
import sys
import time

import torch


def times_of(f, reps):
    f()
    torch.cuda.synchronize()
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        torch.cuda.synchronize()
        t.append((time.perf_counter() - t0) * 1e6)
    return sorted(t)


def main():
    n = int(float(os.environ.get("BENCH_SEARCH_N", "1e6")))
    d = 768
    out = open(os.environ["BENCH_CSV"], "a") if os.environ.get("BENCH_CSV") else sys.stdout
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.cuda.get_device_name(0)
    g = torch.Generator(device="cuda").manual_seed(1)
    D = torch.randn(n, d, device="cuda", generator=g)
    D = D / D.norm(dim=1, keepdim=True)
    q = torch.randn(d, device="cuda", generator=g)
    Q = torch.randn(100, d, device="cuda", generator=g)
    cases = [
        ("torch_1q_k10_float32", lambda: torch.topk(D @ q, 10), 30),
        ("torch_100q_k10_float32", lambda: torch.topk(Q @ D.T, 10, dim=1), 10),
    ]
    D64, Q64 = D.double(), Q.double()
    cases.append(("torch_100q_k10_float64", lambda: torch.topk(Q64 @ D64.T, 10, dim=1), 10))
    for op, f, reps in cases:
        t = times_of(f, reps)
        m = len(t)
        med = t[m // 2]
        print(f"{op:28s} {d}x{n} {med:12.1f} us", file=sys.stderr)
        out.write(f'search,{op},single,{d}x{n},{n},{med:.1f},{t[int(0.1 * (m - 1))]:.1f},'
                  f'{t[int(0.9 * (m - 1))]:.1f},{4 * d * n},{4 * d * n / med / 1e3:.1f},"{dev}"\n')


if __name__ == "__main__":
    main()
