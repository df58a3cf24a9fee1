## Per-call time from the Octave prompt (loops of calls, as a script makes them): gdot on resident data (garray), on host data
## (GPU engine and the default engine), and Octave's dot, for n = 1 ... 2^24, single and
## double.  Median of many calls; several input sets rotated.  Run from the repository root:
##   octave-cli --no-history bench/garray_calls.m
addpath (fileparts (mfilename ("fullpath")));   # loop_us.m

mexdir = getenv ("GPUDOT_MEXDIR");
if (isempty (mexdir))
  mexdir = "build";
endif
addpath (make_absolute_filename ("m"));
addpath (make_absolute_filename (mexdir));   # ahead of m/: the compiled entries
warning ("off", "gpudot:noDevice");
gpu = gpudot_gpu_available ();
s = gpudot_info ();
printf ("# %s, %s; median per call in us\n", s.backend, s.device_name);
printf ("%-7s %6s %12s %12s %12s %12s %12s %12s\n", "class", "log2n", "resident", "res_gcosine",
        "host_gpu", "host_auto", "octave_dot", "empty_mex");
for cls = {"single", "double"}
  for e = [0 10 16 20 24]
    n = 2^e;
    nsets = max (2, min (8, floor (2^27 / (8 * n))));
    xs = cell (nsets, 1);  ys = xs;  gx = xs;  gy = xs;
    for k = 1:nsets
      xs{k} = cast (randn (n, 1), cls{1});  ys{k} = cast (randn (n, 1), cls{1});
      gx{k} = garray (xs{k});  gy{k} = garray (ys{k});
    endfor
    reps = max (21, min (3000, floor (2^28 / n)));
    per = ceil (reps / 7);
    tr = loop_us ("gdot (gx{k_}, gy{k_})", nsets, per);
    tc = loop_us ("gcosine (gx{k_}, gy{k_})", nsets, per);
    th = NaN;
    if (gpu)
      th = loop_us ("gdot (xs{k_}, ys{k_}, 'device', 'gpu')", nsets, ceil (max (21, floor (reps / 4)) / 7));
    endif
    ta = loop_us ("gdot (xs{k_}, ys{k_})", nsets, per);
    td = loop_us ("dot (xs{k_}, ys{k_})", nsets, per);
    te = loop_us ("__gpudot__ ('gpu_available')", nsets, per);
    printf ("%-7s %6d %12.1f %12.1f %12.1f %12.1f %12.1f %12.1f\n", cls{1}, e, tr, tc, th, ta, td, te);
    clear gx gy
  endfor
endfor
