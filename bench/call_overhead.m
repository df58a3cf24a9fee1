## Where the time of a small call on resident data goes: an empty MEX call, the internal
## op with reference structs (no property reads), the public entry with garray objects,
## and the same on the CPU engine; gcosine also on uniform data (its kernel time depends on
## how often a lane meets a new largest exponent).  Plain loops, median of rounds; from the repository root:
##   octave-cli --no-history bench/call_overhead.m
mexdir = getenv ("GPUDOT_MEXDIR");
if (isempty (mexdir))
  mexdir = "build";
endif
addpath (make_absolute_filename ("m"));
addpath (make_absolute_filename (mexdir));
warning ("off", "gpudot:noDevice");
x = single (randn (1024, 1));  y = single (randn (1024, 1));
g = garray (x);  h = garray (y);
gu = garray (single (rand (1024, 1) - 0.5));  hu = garray (single (rand (1024, 1) - 0.5));
gpu = gpudot_gpu_available ();
rg = struct ("garray_id", __gpudot__ ("garray_new", x));   # reference structs: resident
rh = struct ("garray_id", __gpudot__ ("garray_new", y));   # data only with a GPU
N = 20000;  rounds = 7;
cases = {"__gpudot__ ('gpu_available')", "dot (x, y)", "gdot (x, y)", ...
         "__gpudot__ ('dot', rg, rh)", "gdot (g, h)", "gdot (g, h, 'device', 'cpu')", ...
         "gnorm (g)", "gcosine (g, h)", "gcosine (gu, hu)"};
printf ("%-34s %10s\n", "call (n = 1024 single)", "us");
if (! gpu)
  cases(4) = [];
endif
for c = 1:numel (cases)
  t = zeros (rounds, 1);
  eval ([cases{c} ";"]);
  for r = 1:rounds
    eval (sprintf ("t0 = tic (); for i = 1:%d, %s; end; t(r) = toc (t0) / %d;", N, cases{c}, N));
  endfor
  printf ("%-34s %10.2f\n", cases{c}, 1e6 * median (t));
endfor
__gpudot__ ("garray_free", rg.garray_id);
__gpudot__ ("garray_free", rh.garray_id);
