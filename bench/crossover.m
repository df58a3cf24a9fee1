## Per-call time of gdot on host data, CPU engine against GPU engine, and Octave's dot,
## for n = 2^6 ... 2^24 (single and double): picks the size below which "device","auto"
## uses the CPU.  Median of many calls; several input sets rotated so that small sizes do
## not measure a warm cache only.  Prints a table; run from the repository root:
##   octave-cli --no-history bench/crossover.m
1;
function v = getenv_default (name, def)
  v = getenv (name);
  if (isempty (v))
    v = def;
  endif
endfunction
function t = time_calls (f, sets, reps)
  t = zeros (reps, 1);
  for r = 1:reps
    s = sets{mod (r - 1, numel (sets)) + 1};
    t0 = tic ();
    f (s{1}, s{2});
    t(r) = toc (t0);
  endfor
  t = median (t);
endfunction

addpath (make_absolute_filename ("m"));
addpath (make_absolute_filename (getenv_default ("GPUDOT_MEXDIR", "build")));   # ahead of m/
warning ("off", "gpudot:noDevice");
gpu = gpudot_gpu_available ();
info = gpudot_info ();
printf ("device: %s, %s\n", info.backend, info.device_name);
printf ("%-7s %-6s %10s %10s %10s %10s  %s\n", "class", "log2n", "dot_us", "cpu_us", "gpu_us",
        "auto_us", "faster");
for cls = {"single", "double"}
  for e = 6:2:24
    n = 2^e;
    nsets = max (2, min (8, floor (2^26 / n)));   # rotate sets: at least 2, ~256 MiB in all
    sets = cell (nsets, 1);
    for s = 1:nsets
      sets{s} = {cast(randn (n, 1), cls{1}), cast(randn (n, 1), cls{1})};
    endfor
    reps = max (15, min (2000, floor (2^28 / n)));
    td = time_calls (@(x, y) dot (x, y), sets, reps);
    tc = time_calls (@(x, y) gdot (x, y, "device", "cpu"), sets, reps);
    tg = NaN;
    if (gpu)
      gdot (sets{1}{1}, sets{1}{2}, "device", "gpu");
      tg = time_calls (@(x, y) gdot (x, y, "device", "gpu"), sets, reps);
    endif
    ta = time_calls (@(x, y) gdot (x, y), sets, reps);
    printf ("%-7s %-6d %10.1f %10.1f %10.1f %10.1f  %s\n", cls{1}, e, 1e6 * td, 1e6 * tc,
            1e6 * tg, 1e6 * ta, ifelse (tg < tc, "gpu", "cpu"));
  endfor
endfor
