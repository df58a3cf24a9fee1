## Per-call times from Octave, written as CSV rows (columns: bench/README.md) to the file
## named by BENCH_CSV (default: stdout), for bench/run_bench.sh:
##   host data:     gdot, gnorm, gcosine with "device" "auto" (the CPU engine) and "gpu" (the
##                  pinned staging ring), against Octave's dot, norm and vecnorm;
##   resident data: gdot, gnorm, gcosine on garrays (the GPU engine), n = 2^10 ... 2^26.
## The BLAS label comes from version ("-blas") (run_bench.sh runs the host part once per
## BLAS it can switch to); BENCH_PARTS = "host", "resident" or "host,resident" (default); BENCH_MAXLOG caps n.
## Method: a plain loop of calls per round (as a script makes them), rounds of at least
## ~50 ms, median and spread over 7 rounds; several input sets rotated; fresh random data.
1;

function [med, lo, hi] = loop_us (code, nsets, budget_s)
  ## one timed call to size the rounds
  evalin ("caller", sprintf ("k_ = 1; t0_ = tic (); %s; t_ = toc (t0_);", code));
  one = max (evalin ("caller", "t_"), 1e-7);
  per = max (1, min (20000, round (budget_s / 7 / one)));
  rounds = 7;
  t = zeros (rounds, 1);
  for r = 1:rounds
    evalin ("caller", sprintf ("t0_ = tic (); for r_ = 1:%d, k_ = mod (r_ - 1, %d) + 1; %s; end; t_ = toc (t0_);",
                               per, nsets, code));
    t(r) = evalin ("caller", "t_") / per;
  endfor
  t = 1e6 * sort (t);
  med = t(4);  lo = t(1);  hi = t(7);
endfunction

function emit (fid, op, cls, n, bytes, med, lo, hi, label)
  fprintf (fid, "octave,%s,%s,2^%d,%d,%.3f,%.3f,%.3f,%d,%.2f,\"%s\"\n", op, cls, round (log2 (n)),
           n, med, lo, hi, bytes, bytes / med * 1e-3, label);
  fflush (fid);
endfunction

mexdir = getenv ("GPUDOT_MEXDIR");
if (isempty (mexdir))
  mexdir = "build";
endif
addpath (make_absolute_filename ("m"));
addpath (make_absolute_filename (mexdir));
warning ("off", "gpudot:noDevice");
out = getenv ("BENCH_CSV");
if (isempty (out))
  fid = stdout;
else
  fid = fopen (out, "a");
endif
blas = version ("-blas");   # "OpenBLAS (config: ...)" or "unknown or reference BLAS"
if (any (strfind (lower (blas), "openblas")))
  blas = "OpenBLAS";
elseif (any (strfind (lower (blas), "reference")))
  blas = "reference";
endif
blas = strrep (blas, ",", " ");
parts = getenv ("BENCH_PARTS");
if (isempty (parts))
  parts = "host,resident";
endif
maxlog = str2double (getenv ("BENCH_MAXLOG"));
if (isnan (maxlog))
  maxlog = 26;
endif
gpu = gpudot_gpu_available ();
info = gpudot_info ();
dev = sprintf ("%s; BLAS %s", info.device_name, blas);
budget = 0.35;   # seconds of calls per case
rand ("seed", 42);  randn ("seed", 42);
if (any (strfind (parts, "resident")))
  ## the floors of a small call: an empty MEX call, and one that also makes the GPU
  ## round trip of an empty kernel through mapped memory
  [m, l, h] = loop_us ("__gpudot__ ('gpu_available')", 1, budget);
  emit (fid, "mex_empty_call", "none", 1, 0, m, l, h, dev);
  if (gpu)
    [m, l, h] = loop_us ("__gpudot__ ('__ping__')", 1, budget);
    emit (fid, "mex_gpu_roundtrip", "none", 1, 0, m, l, h, dev);
  endif
endif

for cls = {"single", "double"}
  cls = cls{1};
  es = 4 + 4 * strcmp (cls, "double");
  for lg = 10:2:maxlog
    n = 2 ^ lg;
    nsets = max (1, min (8, ceil (200e6 / (2 * n * es))));
    X = cell (nsets, 1);  Y = X;
    for s = 1:nsets
      X{s} = cast (randn (n, 1), cls);  Y{s} = cast (randn (n, 1), cls);
    endfor
    if (any (strfind (parts, "host")))
      [m, l, h] = loop_us ("dot (X{k_}, Y{k_})", nsets, budget);
      emit (fid, "host_dot", cls, n, 2 * n * es, m, l, h, dev);
      [m, l, h] = loop_us ("norm (X{k_})", nsets, budget);
      emit (fid, "host_norm", cls, n, n * es, m, l, h, dev);
      [m, l, h] = loop_us ("vecnorm (X{k_})", nsets, budget);
      emit (fid, "host_vecnorm", cls, n, n * es, m, l, h, dev);
      [m, l, h] = loop_us ("gdot (X{k_}, Y{k_})", nsets, budget);
      emit (fid, "host_gdot_auto", cls, n, 2 * n * es, m, l, h, dev);
      [m, l, h] = loop_us ("gnorm (X{k_})", nsets, budget);
      emit (fid, "host_gnorm_auto", cls, n, n * es, m, l, h, dev);
      [m, l, h] = loop_us ("gcosine (X{k_}, Y{k_})", nsets, budget);
      emit (fid, "host_gcosine_auto", cls, n, 2 * n * es, m, l, h, dev);
      if (gpu)
        [m, l, h] = loop_us ("gdot (X{k_}, Y{k_}, 'device', 'gpu')", nsets, budget);
        emit (fid, "host_gdot_gpu", cls, n, 2 * n * es, m, l, h, dev);
        [m, l, h] = loop_us ("gnorm (X{k_}, 'device', 'gpu')", nsets, budget);
        emit (fid, "host_gnorm_gpu", cls, n, n * es, m, l, h, dev);
        [m, l, h] = loop_us ("gcosine (X{k_}, Y{k_}, 'device', 'gpu')", nsets, budget);
        emit (fid, "host_gcosine_gpu", cls, n, 2 * n * es, m, l, h, dev);
      endif
    endif
    if (any (strfind (parts, "resident")) && gpu)
      G = cell (nsets, 1);  Hh = G;
      for s = 1:nsets
        G{s} = garray (X{s});  Hh{s} = garray (Y{s});
      endfor
      if (n <= 2 ^ 16)
        ## small calls: one set, the loop as a user writes it (no cell indexing, which
        ## costs a few us of its own); L2 holds these sizes whatever we rotate
        g1 = G{1};  h1 = Hh{1};
        [m, l, h] = loop_us ("gdot (g1, h1)", 1, budget);
        emit (fid, "resident_gdot", cls, n, 2 * n * es, m, l, h, dev);
        [m, l, h] = loop_us ("gnorm (g1)", 1, budget);
        emit (fid, "resident_gnorm", cls, n, n * es, m, l, h, dev);
        [m, l, h] = loop_us ("gcosine (g1, h1)", 1, budget);
        emit (fid, "resident_gcosine", cls, n, 2 * n * es, m, l, h, dev);
        clear g1 h1
      else
        [m, l, h] = loop_us ("gdot (G{k_}, Hh{k_})", nsets, budget);
        emit (fid, "resident_gdot", cls, n, 2 * n * es, m, l, h, dev);
        [m, l, h] = loop_us ("gnorm (G{k_})", nsets, budget);
        emit (fid, "resident_gnorm", cls, n, n * es, m, l, h, dev);
        [m, l, h] = loop_us ("gcosine (G{k_}, Hh{k_})", nsets, budget);
        emit (fid, "resident_gcosine", cls, n, 2 * n * es, m, l, h, dev);
      endif
      clear G Hh
    endif
    clear X Y
  endfor
endfor
if (fid != stdout)
  fclose (fid);
endif
