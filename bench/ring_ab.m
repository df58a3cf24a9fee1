## A/B of GPU calls on host data through the staging ring ("device", "gpu", n >= 2^20):
## every call timed alone (tic/toc) over R rounds, S input sets in turn; per size its
## median, 90th percentile, largest, and how many calls took over 3x the median.  Run it
## once per build, alternating the builds.  From the repository root:
##   TAG=name GPUDOT_MEXDIR=<build> [RING_SIZES="20 22 24"] octave-cli --no-history bench/ring_ab.m
## Results: bench/results/h100-ring-pool-ab-2026-11-24.txt
addpath (make_absolute_filename ("m")); addpath (make_absolute_filename ("bench"));
addpath (getenv ("GPUDOT_MEXDIR"));
tag = getenv ("TAG");
lgs = ab_sizes ("RING_SIZES", [20 22 24]);
for cls = {"single", "double"}
for e = lgs
  n = 2^e; S = 3; [X, Y] = ab_sets (n, S, cls{1});
  N = max (60, round (300 * 2^20 / n));
  t = zeros (N, 1);
  gdot (X{1}, Y{1}, "device", "gpu");
  for i = 1:N
    k = mod (i, S) + 1;
    t0 = tic (); gdot (X{k}, Y{k}, "device", "gpu"); t(i) = toc (t0);
  end
  t = sort (1e6 * t);  med = t(round (end / 2));
  bytes = 2 * n * (4 + 4 * strcmp (cls{1}, "double"));
  printf ("%s %s 2^%d: median %8.1f us (%5.1f GB/s), p90 %8.1f, max %8.1f, >3x median %d of %d\n",
          tag, cls{1}, e, med, bytes / med / 1e3, t(ceil (0.9 * end)), t(end), sum (t > 3 * med), N);
end
end
