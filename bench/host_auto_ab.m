## A/B of the CPU engine ("auto" on host data) against Octave's dot, alternating the two in
## each of 9 rounds, 8 input sets in turn: the median of the rounds' loop means, and from
## the same rounds every call timed alone (tic/toc): its median, 99th percentile, largest,
## and how many calls took over 10x the median (stalls).  From the repository root:
##   TAG=name GPUDOT_MEXDIR=<build> [AB_SIZES="10 16"] octave-cli --no-history bench/host_auto_ab.m
## Results: bench/results/h100-cpu-auto-ab-2026-11-22.txt, h100-cpu-pool-ab-2026-11-24.txt
addpath (make_absolute_filename ("m")); addpath (make_absolute_filename ("bench"));
addpath (getenv ("GPUDOT_MEXDIR"));
warning ("off", "gpudot:noDevice");
tag = getenv ("TAG");
sizes = ab_sizes ("AB_SIZES", [10 12 13 14 15 16 17 18 20]);
for cls = {"single", "double"}
for e = sizes
  n = 2^e; [X, Y] = ab_sets (n, 8, cls{1});
  N = max (100, round (4000 * 2^12 / max (n, 2^12)));
  cs = {"dot (X{k}, Y{k})", "gdot (X{k}, Y{k})"};
  t = zeros (9, 2);
  one = zeros (9 * N, 2);
  for r = 1:9
    for c = 1:2
      eval (sprintf ("t0 = tic (); for i = 1:%d, k = mod (i, 8) + 1; %s; end; t(r,c) = toc (t0) / %d;", N, cs{c}, N));
      eval (sprintf ("for i = 1:%d, k = mod (i, 8) + 1; t0 = tic (); %s; one((r-1)*%d+i,%d) = toc (t0); end", N, cs{c}, N, c));
    end
  end
  m = 1e6 * median (t);
  one = sort (1e6 * one);
  med = one(round (end / 2), :);  p99 = one(ceil (0.99 * end), :);  mx = one(end, :);
  slow = sum (one > 10 * med);
  printf ("%s %s 2^%d: dot %7.2f gdot %7.2f ratio %.3f | calls: median %7.2f / %7.2f, p99 %8.1f / %8.1f, max %8.1f / %8.1f, >10x median %d / %d of %d\n",
          tag, cls{1}, e, m(1), m(2), m(2)/m(1), med, p99, mx, slow, 9 * N);
end
end
