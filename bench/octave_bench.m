## Per-call times from Octave, written as CSV rows (columns: bench/README.md) to the file
## named by BENCH_CSV (default: stdout), for bench/run_bench.sh:
##   host data:     gdot, gnorm, gcosine with "device" "auto" (the CPU engine) and "gpu" (the
##                  pinned staging ring), against Octave's dot, norm and vecnorm;
##   resident data: gdot, gnorm, gcosine on garrays (the GPU engine), n = 2^10 ... 2^26.
## The BLAS label comes from version ("-blas") (run_bench.sh runs the host part once per
## BLAS it can switch to); BENCH_PARTS = "host", "resident" or "host,resident" (default); BENCH_MAXLOG caps n.
## Method: a plain loop of calls per round (as a script makes them), the calls compared in
## one table measured in alternating rounds, median and spread over 9 rounds; several input
## sets rotated; fresh random data.
1;

## Times (us per call) of several calls measured in alternation: round r runs a plain loop
## of each call in turn, so that drift of the machine hits all of them alike; median, min
## and max over 9 rounds of each loop's mean.  With one set the loop has no indexing at all.
## For the calls flagged in PERCALL (long ones: the staging ring) the loop also times each
## call alone (tic/toc around it); C(:, c) is then the median, 10th and 90th percentile of
## those single calls over all rounds.  Loop means also count the VM's slow phases (runs of
## calls up to 9x slower than their median, in ring_bench without Octave too; a pinned copy
## measured at 2/3 of its rate in one: doc/design.md) wherever they fall; the
## median of single calls is the target's "many calls, median".
function [T, C] = rounds_us (codes, nsets, budget_s, percall = false (size (codes)))
  nc = numel (codes);
  per = zeros (nc, 1);
  for c = 1:nc   # one timed call each, after an untimed one, to size the loops.  (The
    ## first call of a case can load its kernel (CUDA loads modules lazily): sized by it,
    ## the GPU round-trip floor ran loops of a few calls that the loop's own parse
    ## dominated, 34-46 us a call against 18 when sized after a warm call.)
    evalin ("caller", sprintf ("k_ = 1; %s; t0_ = tic (); %s; t_ = toc (t0_);", codes{c}, codes{c}));
    per(c) = max (1, min (20000, round (budget_s / nc / 9 / max (evalin ("caller", "t_"), 1e-7))));
  endfor
  rounds = 9;
  t = zeros (rounds, nc);
  single_calls = cell (1, nc);
  for r = 1:rounds
    for c = 1:nc
      if (percall(c))
        loop = sprintf (["tt_ = zeros (1, %d); t0_ = tic (); for r_ = 1:%d, k_ = mod (r_ - 1, %d) + 1; ", ...
                         "t1_ = tic (); %s; tt_(r_) = toc (t1_); end; t_ = toc (t0_);"],
                        per(c), per(c), nsets, codes{c});
      elseif (nsets == 1)
        loop = sprintf ("k_ = 1; t0_ = tic (); for r_ = 1:%d, %s; end; t_ = toc (t0_);", per(c), codes{c});
      else
        loop = sprintf ("t0_ = tic (); for r_ = 1:%d, k_ = mod (r_ - 1, %d) + 1; %s; end; t_ = toc (t0_);",
                        per(c), nsets, codes{c});
      endif
      evalin ("caller", loop);
      t(r, c) = 1e6 * evalin ("caller", "t_") / per(c);
      if (percall(c))
        single_calls{c} = [single_calls{c}, 1e6 * evalin("caller", "tt_")];
      endif
    endfor
  endfor
  T = [median(t, 1); min(t, [], 1); max(t, [], 1)];
  C = NaN (3, nc);
  for c = find (percall)
    v = sort (single_calls{c});
    m = numel (v);
    C(:, c) = [median(v); v(floor (0.1 * (m - 1)) + 1); v(floor (0.9 * (m - 1)) + 1)];
  endfor
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
  if (gpu)
    T = rounds_us ({"__gpudot__ ('gpu_available')", "__gpudot__ ('__ping__')"}, 1, 2 * budget);
    emit (fid, "mex_empty_call", "none", 1, 0, T(1, 1), T(2, 1), T(3, 1), dev);
    emit (fid, "mex_gpu_roundtrip", "none", 1, 0, T(1, 2), T(2, 2), T(3, 2), dev);
  else
    T = rounds_us ({"__gpudot__ ('gpu_available')"}, 1, budget);
    emit (fid, "mex_empty_call", "none", 1, 0, T(1, 1), T(2, 1), T(3, 1), dev);
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
      names = {"host_dot", "host_norm", "host_vecnorm", "host_gdot_auto", "host_gnorm_auto", ...
               "host_gcosine_auto"};
      codes = {"dot (X{k_}, Y{k_})", "norm (X{k_})", "vecnorm (X{k_})", "gdot (X{k_}, Y{k_})", ...
               "gnorm (X{k_})", "gcosine (X{k_}, Y{k_})"};
      nbytes = [2 1 1 2 1 2] * n * es;
      if (gpu)
        names = [names, {"host_gdot_gpu", "host_gnorm_gpu", "host_gcosine_gpu"}];
        codes = [codes, {"gdot (X{k_}, Y{k_}, 'device', 'gpu')", "gnorm (X{k_}, 'device', 'gpu')", ...
                         "gcosine (X{k_}, Y{k_}, 'device', 'gpu')"}];
        nbytes = [nbytes, [2 1 2] * n * es];
      endif
      percall = ! cellfun (@isempty, regexp (names, "_gpu$"));
      [T, C] = rounds_us (codes, nsets, budget * numel (codes), percall);
      for c = 1:numel (codes)
        emit (fid, names{c}, cls, n, nbytes(c), T(1, c), T(2, c), T(3, c), dev);
        if (percall(c))
          emit (fid, [names{c} "_call"], cls, n, nbytes(c), C(1, c), C(2, c), C(3, c), dev);
        endif
      endfor
    endif
    if (any (strfind (parts, "resident")) && gpu)
      G = cell (nsets, 1);  Hh = G;
      for s = 1:nsets
        G{s} = garray (X{s});  Hh{s} = garray (Y{s});
      endfor
      names = {"resident_gdot", "resident_gnorm", "resident_gcosine"};
      nbytes = [2 1 2] * n * es;
      if (n <= 2 ^ 16)
        ## small calls: one set, the loop as a user writes it (no cell indexing, which
        ## costs a few us of its own); L2 holds these sizes whatever we rotate.  An empty
        ## MEX call in the same rounds (resident_floor_mex): pure host work, so the row
        ## shows how fast the host was while they ran (the VMs' vCPUs took 3.1 to 6.2 us
        ## for it, and every small call moves with it)
        g1 = G{1};  h1 = Hh{1};
        T = rounds_us ({"gdot (g1, h1)", "gnorm (g1)", "gcosine (g1, h1)", ...
                        "__gpudot__ ('gpu_available')"}, 1, 4 * budget);
        emit (fid, "resident_floor_mex", cls, n, 0, T(1, 4), T(2, 4), T(3, 4), dev);
        clear g1 h1
      else
        T = rounds_us ({"gdot (G{k_}, Hh{k_})", "gnorm (G{k_})", "gcosine (G{k_}, Hh{k_})"}, nsets,
                       3 * budget);
      endif
      for c = 1:3
        emit (fid, names{c}, cls, n, nbytes(c), T(1, c), T(2, c), T(3, c), dev);
      endfor
      clear G Hh
    endif
    clear X Y
  endfor
endfor
if (fid != stdout)
  fclose (fid);
endif
