## Per-call time from the Octave prompt: gdot on resident data (garray), on host data
## (GPU engine and the default engine), and Octave's dot, for n = 1 ... 2^24, single and
## double.  Median of many calls; several input sets rotated.  Run from the repository root:
##   octave-cli --no-history bench/garray_calls.m
1;
function t = med_us (f, nsets, reps)
  t = zeros (reps, 1);
  for r = 1:reps
    s = mod (r - 1, nsets) + 1;
    t0 = tic ();
    f (s);
    t(r) = toc (t0);
  endfor
  t = 1e6 * median (t);
endfunction

mexdir = getenv ("GPUDOT_MEXDIR");
if (isempty (mexdir))
  mexdir = "build";
endif
addpath (make_absolute_filename ("m"), make_absolute_filename (mexdir));
warning ("off", "gpudot:noDevice");
gpu = gpudot_gpu_available ();
s = gpudot_info ();
printf ("# %s, %s; median per call in us\n", s.backend, s.device_name);
printf ("%-7s %6s %12s %12s %12s %12s %12s\n", "class", "log2n", "resident", "res_gcosine",
        "host_gpu", "host_auto", "octave_dot");
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
    tr = med_us (@(k) gdot (gx{k}, gy{k}), nsets, reps);
    tc = med_us (@(k) gcosine (gx{k}, gy{k}), nsets, reps);
    th = NaN;
    if (gpu)
      th = med_us (@(k) gdot (xs{k}, ys{k}, "device", "gpu"), nsets, max (21, floor (reps / 4)));
    endif
    ta = med_us (@(k) gdot (xs{k}, ys{k}), nsets, reps);
    td = med_us (@(k) dot (xs{k}, ys{k}), nsets, reps);
    printf ("%-7s %6d %12.1f %12.1f %12.1f %12.1f %12.1f\n", cls{1}, e, tr, tc, th, ta, td);
    clear gx gy
  endfor
endfor
