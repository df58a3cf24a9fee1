## A/B of the CPU engine ("auto" on host data) against Octave's dot at small n, alternating
## the two in each of 9 rounds, 8 input sets in turn.  From the repository root:
##   TAG=name GPUDOT_MEXDIR=<build> octave-cli --no-history bench/host_auto_ab.m
## Results: bench/results/h100-cpu-auto-ab-2026-11-22.txt
addpath (make_absolute_filename ("m")); addpath (getenv ("GPUDOT_MEXDIR"));
warning ("off", "gpudot:noDevice");
tag = getenv ("TAG");
for cls = {"single", "double"}
for e = [10 12 13 14 15 16 18]
  n = 2^e; S = 8; X = cell (S,1); Y = X;
  for s = 1:S, X{s} = cast (randn (n,1), cls{1}); Y{s} = cast (randn (n,1), cls{1}); end
  N = max (200, round (4000 * 2^12 / max (n, 2^12)));
  cs = {"dot (X{k}, Y{k})", "gdot (X{k}, Y{k})"};
  t = zeros (9, 2);
  for r = 1:9
    for c = 1:2
      eval (sprintf ("t0 = tic (); for i = 1:%d, k = mod (i, 8) + 1; %s; end; t(r,c) = toc (t0) / %d;", N, cs{c}, N));
    end
  end
  m = 1e6 * median (t);
  printf ("%s %s 2^%d: dot %7.2f gdot %7.2f ratio %.3f\n", tag, cls{1}, e, m(1), m(2), m(2)/m(1));
end
end
