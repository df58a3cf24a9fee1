## Where a GPU call on host data through the staging ring spends what it adds from Octave
## (issue 5, target 6: single 2^22 took ~800-840 us a call from Octave against ~750 in
## bench/ring_bench.cu without it).  Variants in alternating rounds, each call timed alone:
##   rot   gdot (X{k}, Y{k}, "device", "gpu"), k cycling over the sets make bench uses
##   same  the same call on one set (its source lines may stay in the last-level cache)
##   mex   __gpudot__ ("__entry__", "gdot", X{k}, Y{k}, "device", "gpu"), rotating (the MEX
##         the compiled entry hands such calls to, without the entry's feval)
## With a build of `make -f mex.mk STAGES=1` (GPUDOT_MEXDIR) it also prints each variant's
## stage sums per call (bench/print_stages.m).  From the repository root:
##   GPUDOT_MEXDIR=<build> [PROBE_SIZES="22 24"] octave-cli --no-history bench/ring_octave_probe.m
addpath (make_absolute_filename ("m")); addpath (make_absolute_filename ("bench"));
addpath (getenv ("GPUDOT_MEXDIR"));
stages = true;
try
  __gpudot__ ("__stages__");
catch
  stages = false;
end_try_catch
lgs = ab_sizes ("PROBE_SIZES", [22 24]);
R = 5;
for cls = {"single", "double"}
  for e = lgs
    n = 2^e;  es = 4 + 4 * strcmp (cls{1}, "double");
    S = max (1, min (8, ceil (200e6 / (2 * n * es))));   # as bench/octave_bench.m
    [X, Y] = ab_sets (n, S, cls{1});
    N = max (20, round (60 * 2^22 / n));
    codes = {"gdot (X{k}, Y{k}, 'device', 'gpu')", "gdot (X{1}, Y{1}, 'device', 'gpu')", ...
             "__gpudot__ ('__entry__', 'gdot', X{k}, Y{k}, 'device', 'gpu')"};
    tags = {"rot", "same", "mex"};
    t = cell (1, 3);  st = [];
    for c = 1:3
      k = 1;  eval ([codes{c} ";"]);
    endfor
    for r = 1:R
      for c = 1:3
        if (stages)
          __gpudot__ ("__stages__");
        endif
        tt = zeros (N, 1);
        for i = 1:N
          k = mod (i, S) + 1;
          t0 = tic ();  eval ([codes{c} ";"]);  tt(i) = toc (t0);
        endfor
        t{c} = [t{c}; tt];
        if (stages)
          s = __gpudot__ ("__stages__");   # us a call since the reset
          if (isempty (st))
            st = zeros (3, numel (s));
          endif
          st(c, :) += s(:)' / R;
        endif
      endfor
    endfor
    bytes = 2 * n * es;
    for c = 1:3
      v = sort (1e6 * t{c});
      printf ("%-6s 2^%d %-4s sets %d: median %8.1f us (%5.1f GB/s), p10 %8.1f, p90 %8.1f of %d calls",
              cls{1}, e, tags{c}, S, v(round (end / 2)), bytes / v(round (end / 2)) / 1e3,
              v(floor (0.1 * (end - 1)) + 1), v(floor (0.9 * (end - 1)) + 1), numel (v));
      if (stages)
        printf (" | stages per call:");
        print_stages (st(c, :), 0.5, 1);
      else
        printf ("\n");
      endif
    endfor
    clear X Y
  endfor
endfor
