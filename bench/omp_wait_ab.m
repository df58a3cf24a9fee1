## Host "auto" calls (gdot, gnorm) against dot under one OpenMP setting, taken from the
## environment of this process (e.g. OMP_WAIT_POLICY=passive, GOMP_SPINCOUNT, OMP_NUM_THREADS):
##   TAG=name GPUDOT_MEXDIR=<build> octave-cli --no-history bench/omp_wait_ab.m
## Results: bench/results/h100-omp-wait-ab-2026-11-22.txt
addpath (make_absolute_filename ("m")); addpath (getenv ("GPUDOT_MEXDIR"));
warning ("off", "gpudot:noDevice");
tag = getenv ("TAG");
for e = [14 16 18 20]
  n = 2^e; S = 4; X = cell (S,1); Y = X;
  for s = 1:S, X{s} = single (randn (n,1)); Y{s} = single (randn (n,1)); end
  N = max (20, round (2000 * 2^14 / n));
  cs = {"dot (X{k}, Y{k})", "gdot (X{k}, Y{k})", "gnorm (X{k})"};
  t = zeros (9, 3);
  for c = 1:3, k = 1; eval ([cs{c} ";"]); end
  for r = 1:9
    for c = 1:3
      eval (sprintf ("t0 = tic (); for i = 1:%d, k = mod (i, %d) + 1; %s; end; t(r,c) = toc (t0) / %d;", N, S, cs{c}, N));
    end
  end
  m = 1e6 * median (t); lo = 1e6 * min (t); hi = 1e6 * max (t);
  printf ("%-10s single 2^%d: dot %7.1f gdot %7.1f [%7.1f %8.1f] gnorm %7.1f [%7.1f %8.1f]\n", tag, e, m(1), m(2), lo(2), hi(2), m(3), lo(3), hi(3));
end
