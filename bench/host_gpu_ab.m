## A/B of GPU calls on host data at small n ("device", "gpu": the direct path up to 256 KiB
## of operands, the staging ring above), with Octave's dot and "auto" in the same rounds;
## 9 rounds, 8 input sets in turn, us a call (median of the rounds' loop means).  From the
## repository root:
##   TAG=name GPUDOT_MEXDIR=<build> octave-cli --no-history bench/host_gpu_ab.m
## (HOST_SIZES="14 15 16": other log2 n than the default 10 12 14 15 16 17 18)
## Results: bench/results/h100-host-direct-ab-2026-11-24.txt
addpath (make_absolute_filename ("m")); addpath (make_absolute_filename ("bench"));
addpath (getenv ("GPUDOT_MEXDIR"));
warning ("off", "gpudot:noDevice");
tag = getenv ("TAG");
lgs = ab_sizes ("HOST_SIZES", [10 12 14 15 16 17 18]);
for cls = {"single", "double"}
for e = lgs
  n = 2^e; [X, Y] = ab_sets (n, 8, cls{1});
  N = max (100, round (2000 * 2^12 / max (n, 2^12)));
  cs = {"dot (X{k}, Y{k})", "gdot (X{k}, Y{k})", "gdot (X{k}, Y{k}, 'device', 'gpu')", ...
        "gnorm (X{k}, 'device', 'gpu')", "gcosine (X{k}, Y{k}, 'device', 'gpu')"};
  t = zeros (9, numel (cs));
  for r = 1:9
    for c = 1:numel (cs)
      eval (sprintf ("t0 = tic (); for i = 1:%d, k = mod (i, 8) + 1; %s; end; t(r,c) = toc (t0) / %d;", N, cs{c}, N));
    end
  end
  m = 1e6 * median (t);
  printf ("%s %s 2^%d: dot %7.2f auto %7.2f gpu: gdot %7.2f gnorm %7.2f gcosine %7.2f\n", tag, cls{1}, e, m);
end
end
