## Several GPUs (make bench, where more than one GPU is visible): resident gdot of single
## vectors with 2^LOG elements per GPU (BENCH_SHARD_LOG, default 30) on one GPU (a plain
## garray, and one shard) and on every GPU; gdot of host data (at most 2^28 a GPU) through
## one GPU's ring and one ring per GPU; then a 768-row single matrix larger
## than one GPU holds (BENCH_SHARD_GB, default 1.25 x one GPU's memory) queried with
## gcosine.  Rows go to BENCH_CSV (section "shards") as in octave_bench.m.

1;

function t = times_us (f, reps)
  f ();                          # warm: kernels loaded, buffers grown
  t = zeros (1, reps);
  for i = 1:reps
    t0 = tic ();
    f ();
    t(i) = 1e6 * toc (t0);
  endfor
endfunction

function t = spread_us (x, y, devs, reps)
  ## gdot of host data spread over devs
  __gpudot__ ("spread_devices", devs);
  unwind_protect
    t = times_us (@() gdot (x, y, "device", "gpu"), reps);
  unwind_protect_cleanup
    __gpudot__ ("spread_devices", []);
  end_unwind_protect
endfunction

function row (fid, op, cls, shape, n, t, bytes, dev)
  v = sort (t);
  m = numel (v);
  med = median (v);
  printf ("%-34s %-6s %14s  %10.1f us  %8.1f GB/s\n", op, cls, shape, med, bytes / med / 1e3);
  if (fid > 0)
    fprintf (fid, "shards,%s,%s,%s,%d,%.3f,%.3f,%.3f,%d,%.2f,\"%s\"\n", op, cls, shape, n, med,
             v(floor (0.1 * (m - 1)) + 1), v(floor (0.9 * (m - 1)) + 1), bytes,
             bytes / med / 1e3, dev);
  endif
endfunction

addpath (fullfile (fileparts (mfilename ("fullpath")), "..", "tests"));
gpudot_test_paths ();
s = gpudot_info ();
nd = s.device_count;
lg = str2double (getenv ("BENCH_SHARD_LOG"));
if (isnan (lg))
  lg = 30;
endif
fid = -1;
if (! isempty (getenv ("BENCH_CSV")))
  fid = fopen (getenv ("BENCH_CSV"), "a");
endif
dev = sprintf ("%d x %s", nd, s.device_name);
printf ("shard_bench: %s, 2^%d singles per GPU\n", dev, lg);

## resident gdot: one GPU (plain and one shard), then every GPU
n1 = 2 ^ lg;
x = ones (n1 * nd, 1, "single");
y = ones (n1 * nd, 1, "single");
x(1:2:end) = 0.5;
reps = 20;
X = garray (x(1:n1));  Y = garray (y(1:n1));
row (fid, "gdot: one GPU", "single", sprintf ("2^%d", lg), n1,
     times_us (@() gdot (X, Y), reps), 8 * n1, dev);
clear X Y
X = garray (x(1:n1), "devices", 0);  Y = garray (y(1:n1), "devices", 0);
row (fid, "gdot: one GPU in one shard", "single", sprintf ("2^%d", lg), n1,
     times_us (@() gdot (X, Y), reps), 8 * n1, dev);
r1 = gdot (X, Y);
clear X Y
t0 = tic ();
X = garray (x, "devices", "all");
up = toc (t0);
Y = garray (y, "devices", "all");
row (fid, sprintf ("gdot: %d GPUs", nd), "single", sprintf ("%d x 2^%d", nd, lg), n1 * nd,
     times_us (@() gdot (X, Y), reps), 8 * n1 * nd, dev);
printf ("upload of %.1f GB to %d GPUs: %.2f s (%.1f GB/s)\n", 4 * n1 * nd / 1e9, nd, up,
        4 * n1 * nd / 1e9 / up);
Z = garray (x, "devices", [0 0]);
W = garray (y, "devices", [0 0]);
printf ("bits equal on %d GPUs and on one (two shards): %d\n", nd,
        isequal (gdot (X, Y), gdot (Z, W)));
clear X Y Z W

## host data: gdot of the same vectors (2^LOG singles per GPU, at most 2^28) through one
## GPU's ring, then through one ring per GPU
nh = 2 ^ min (lg, 28) * nd;
row (fid, "gdot host data: one GPU's ring", "single", sprintf ("%d x 2^%d", nd, log2 (nh / nd)),
     nh, spread_us (x(1:nh), y(1:nh), 0, 10), 8 * nh, dev);
h1 = gdot (x(1:nh), y(1:nh), "device", "gpu");
row (fid, sprintf ("gdot host data: %d GPUs' rings", nd), "single",
     sprintf ("%d x 2^%d", nd, log2 (nh / nd)), nh, spread_us (x(1:nh), y(1:nh), 0:nd-1, 10),
     8 * nh, dev);
__gpudot__ ("spread_devices", 0:nd-1);
printf ("bits equal through one ring and %d: %d\n", nd, isequal (gdot (x(1:nh), y(1:nh), "device", "gpu"), h1));
__gpudot__ ("spread_devices", []);
clear x y

## the 768-wide query: a matrix one GPU holds, on one GPU and on every GPU; what Octave's
## result array costs alone; then a matrix larger than one GPU holds
m1 = 2 ^ 23;
D = ones (768, m1, "single");
D(1, 1:2:end) = 2;
q = ones (768, 1, "single");
G = garray (D);
row (fid, "gcosine (q G): one GPU", "single", sprintf ("768x%d", m1), 768 * m1,
     times_us (@() gcosine (q, G), 10), 4 * 768 * m1, dev);
c1 = gcosine (q, G);
## what Octave's new result array costs alone (its pages are faulted in as they are written)
row (fid, "zeros (1 m single): the result array alone", "single", sprintf ("1x%d", m1), m1,
     times_us (@() zeros (1, m1, "single"), 10), 4 * m1, dev);
clear G
G = garray (D, "devices", "all");
row (fid, sprintf ("gcosine (q G): %d GPUs", nd), "single", sprintf ("768x%d", m1), 768 * m1,
     times_us (@() gcosine (q, G), 10), 4 * 768 * m1, dev);
printf ("bits equal, one GPU and %d GPUs (768 x 2^23): %d\n", nd, isequal (c1, gcosine (q, G)));
clear G D c1
gb = str2double (getenv ("BENCH_SHARD_GB"));
if (isnan (gb))
  gb = 1.25 * s.memory_total / 1e9;
endif
m = 1024 * ceil (gb * 1e9 / (768 * 4) / 1024);
t0 = tic ();
D = ones (768, m, "single");
D(1, 1:2:end) = 2;
q = ones (768, 1, "single");
t_fill = toc (t0);
t0 = tic ();
G = garray (D, "devices", "all");
t_up = toc (t0);
clear D
printf ("768 x %d singles (%.1f GB): filled in %.1f s, uploaded to %d GPUs in %.1f s\n", m,
        768 * 4 * m / 1e9, t_fill, nd, t_up);
row (fid, sprintf ("gcosine (q G): %d GPUs", nd), "single", sprintf ("768x%d", m), 768 * m,
     times_us (@() gcosine (q, G), 10), 4 * 768 * m, dev);
c = gcosine (q, G);
printf ("check: %d\n", abs (c(1) - 769 / sqrt (768 * 771)) < 1e-6 && abs (c(2) - 1) < 1e-6);
if (fid > 0)
  fclose (fid);
endif
