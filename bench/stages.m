## Where the time of a call goes, stage by stage, from the timers of a MEX built with
## STAGES=1 (the normal build has none).  On a machine with an NVIDIA GPU, from the
## repository root:
##   make -f mex.mk SRC=. OUT=build-stages STAGES=1 LINK_ENTRIES=1
##   GPUDOT_MEXDIR=build-stages octave-cli --no-history bench/stages.m
## Part 1: small calls on resident data (issue 5, target 5): the time of a loop of calls,
## the part of it inside the MEX, stage by stage, and what remains (Octave's own cost of
## the call and of the loop).  gdot (g, h) and the like are answered by the compiled
## entries' fast path, which records only the engine's stages (engine_entry on): there
## "inside" is the engine and "outside" includes the entry's own work; the same calls
## through the MEX ("__entry__") show every stage.  Part 2: host data through the pinned staging ring
## (target 6): per call, the stages of the ring against the pinned-transfer floor.
mexdir = getenv ("GPUDOT_MEXDIR");
if (isempty (mexdir))
  mexdir = "build-stages";
endif
addpath (make_absolute_filename ("m"));
addpath (make_absolute_filename (mexdir));
addpath (fileparts (mfilename ("fullpath")));   # print_stages.m
warning ("off", "gpudot:noDevice");
try
  __gpudot__ ("__stages__");
catch err
  error ("stages: %s", err.message);
end_try_catch
s = gpudot_info ();
printf ("# %s, %s\n", s.backend, s.device_name);
gpu = gpudot_gpu_available ();

printf ("\n## small calls on resident data: us per call (median of 5 loops of 20000)\n");
N = 20000;
for cls = {"single", "double"}
  for n = [1024 65536]
    x = cast (randn (n, 1), cls{1});  y = cast (randn (n, 1), cls{1});
    g = garray (x);  h = garray (y);
    cases = {"__gpudot__ ('gpu_available')", "gdot (g, h)", "gnorm (g)", "gcosine (g, h)", ...
             "__gpudot__ ('__entry__', 'gdot', g, h)"};
    if (gpu)
      cases{end+1} = "__gpudot__ ('__ping__')";
    endif
    for c = 1:numel (cases)
      t = zeros (5, 1);
      eval ([cases{c} ";"]);
      for r = 1:5
        __gpudot__ ("__stages__");
        eval (sprintf ("t0 = tic (); for i = 1:%d, %s; end; t(r) = toc (t0) / %d;", N, cases{c}, N));
        st = __gpudot__ ("__stages__");
      endfor
      tot = 1e6 * median (t);
      inside = sum (st(2:end));
      printf ("%-6s n=%-6d %-30s total %6.2f  outside the MEX %5.2f  inside %5.2f:", cls{1}, n,
              cases{c}, tot, tot - inside, inside);
      print_stages (st, 0.05, 2);
    endfor
  endfor
endfor

if (gpu)
  printf ("\n## host data through the staging ring: us per call (median), stage sums per call\n");
  for cls = {"single", "double"}
    for e = [22 23 24 26]
      n = 2^e;  nsets = 3;
      xs = cell (nsets, 1);  ys = xs;
      for k = 1:nsets
        xs{k} = cast (randn (n, 1), cls{1});  ys{k} = cast (randn (n, 1), cls{1});
      endfor
      es = 4 + 4 * strcmp (cls{1}, "double");
      gdot (xs{1}, ys{1}, "device", "gpu");
      reps = max (6, min (60, round (2^26 / n)));
      t = zeros (reps, 1);
      __gpudot__ ("__stages__");
      for r = 1:reps
        k = mod (r - 1, nsets) + 1;
        t0 = tic ();  gdot (xs{k}, ys{k}, "device", "gpu");  t(r) = toc (t0);
      endfor
      st = __gpudot__ ("__stages__");
      printf ("%-6s 2^%d: %9.1f us, %.2f GB/s:", cls{1}, e, 1e6 * median (t), 2 * n * es / median (t) * 1e-9);
      print_stages (st, 0.5, 1);
    endfor
  endfor
endif
