## gpudot big sizes (make check-big; GPU machine, ~40 GiB of host memory): one vector of
## 2^32 + 3 elements (single, 16 GiB) reduced from host memory and as a garray; a host
## vector larger than the device's free memory (garrays fill the device first), streamed
## through the staging ring; a garray too big for what is left (gpudot:outOfMemory,
## nothing kept); and the device's free memory back where it started once all is freed.
## Prints every figure and ends with one line
##   N passed, N failed, N skipped
## exiting non-zero on any failure.  Without a GPU every case is skipped.

1;

function check (name, got, want, rtol)
  global passed failed
  err = max (abs (double (got(:)) - want(:)) ./ max (abs (want(:)), realmin));
  if (all (isfinite (double (got(:)))) && err <= rtol)
    passed++;
    printf ("ok   %-46s got %.10g, want %.10g, rel err %.2e\n", name, got(1), want(1), err);
  else
    failed++;
    printf ("FAIL %-46s got %.10g, want %.10g, rel err %.2e > %.1e\n", name, got(1), want(1), err, rtol);
  endif
endfunction

function ok (name, cond, detail)
  global passed failed
  if (cond)
    passed++;
    printf ("ok   %s %s\n", name, detail);
  else
    failed++;
    printf ("FAIL %s %s\n", name, detail);
  endif
endfunction

function f = free_gib ()
  i = gpudot_info ();
  f = i.memory_free / 2^30;
endfunction

global passed failed
passed = failed = 0;
here = fileparts (mfilename ("fullpath"));
addpath (here);
gpudot_test_paths ();
ncases = 12;
if (! gpudot_gpu_available ())
  printf ("no usable GPU: big sizes skipped\n");
  printf ("0 passed, 0 failed, %d skipped\n", ncases);
  exit (0);
endif
info = gpudot_info ();
printf ("big sizes on %s (%.1f GiB, %.1f GiB free)\n", info.device_name,
        info.memory_total / 2^30, info.memory_free / 2^30);
__gpudot__ ("release");
free0 = free_gib ();

## x, y: 2^32 + 3 singles: a random block of p = 2^26 + 1 elements repeated (p does not
## divide 2^32, so an index that wraps at 2^32 reads other values), and the last three
## elements large (1000, 2000, 3000: 1.3% of x'y), so that losing or misplacing them
## shows.  The references come from one block in double (the block's sums times the
## number of whole blocks, plus the rest): generating and summing 2^32 fresh random
## numbers took 529 s of Octave on the H100 machine.
n = str2double (getenv ("GPUDOT_BIG_N")); if (isnan (n)) n = 2^32 + 3; endif
p = 2^26 + 1;
rand ("seed", 32);
t0 = tic ();
xb = rand (p, 1, "single");
yb = rand (p, 1, "single");
tail = single ([1000; 2000; 3000]);
x = zeros (n, 1, "single");
y = zeros (n, 1, "single");
for i0 = 1:p:n
  i1 = min (n, i0 + p - 1);
  x(i0:i1) = xb(1:i1 - i0 + 1);
  y(i0:i1) = yb(1:i1 - i0 + 1);
endfor
x(end-2:end) = tail;
y(end-2:end) = tail;
q = floor ((n - 3) / p);           # whole blocks before the tail
r = n - 3 - q * p;                 # then r elements of a block, then the tail
xd = double (xb);  yd = double (yb);  td = double (tail);
blocksum = @(f) q * f(xd, yd) + f(xd(1:r), yd(1:r)) + f(td, td);
sxy = blocksum (@(a, b) a' * b);
sxx = blocksum (@(a, b) a' * a);
syy = blocksum (@(a, b) b' * b);
sx1 = blocksum (@(a, b) sum (abs (a)));
clear xd yd
printf ("data: 2 x %d singles (%.1f GiB each) in %.0f s\n", n, n * 4 / 2^30, toc (t0));
bx = n * 4;

## host data through the staging ring, and on the CPU engine
t0 = tic ();  d = gdot (x, y, "device", "gpu");  t = toc (t0);
check (sprintf ("gdot host 2^32+3, gpu (%.2f s)", t), d, sxy, 1e-6);
t0 = tic ();  v = gnorm (x, 1, "device", "gpu");  t = toc (t0);
check (sprintf ("gnorm 1 host 2^32+3, gpu (%.2f s)", t), v, sx1, 1e-6);
t0 = tic ();  d = gdot (x, y, "device", "cpu");  t = toc (t0);
check (sprintf ("gdot host 2^32+3, cpu (%.2f s)", t), d, sxy, 1e-6);

## resident
t0 = tic ();  gx = garray (x);  gy = garray (y);  t = toc (t0);
printf ("two garrays of %.1f GiB in %.1f s; %.1f GiB free\n", bx / 2^30, t, free_gib ());
t0 = tic ();  d = gdot (gx, gy);  t = toc (t0);
check (sprintf ("gdot garray 2^32+3 (%.3f s)", t), d, sxy, 1e-6);
check ("gnorm garray 2^32+3", gnorm (gx), sqrt (sxx), 1e-6);
check ("gcosine garray 2^32+3", gcosine (gx, gy), sxy / sqrt (sxx * syy), 1e-5);
ok ("gather garray 2^32+3 bit for bit", isequal (gather (gx), x), "");

## fill the device with garrays until a host vector no longer fits beside them
more = {};
while (free_gib () * 2^30 >= bx + 2^30)
  more{end+1} = garray (x);
endwhile
f = free_gib ();
printf ("%d more garrays: %.1f GiB free, host vector %.1f GiB\n", numel (more), f, bx / 2^30);
ok ("host vector larger than the free device memory", bx > f * 2^30,
    sprintf ("(%.1f GiB > %.1f GiB free)", bx / 2^30, f));
t0 = tic ();  d = gdot (x, y, "device", "gpu");  t = toc (t0);
check (sprintf ("gdot host > free memory, gpu (%.2f s)", t), d, sxy, 1e-6);

## a garray that does not fit: a clean error, nothing kept
i0 = gpudot_info ();
try
  g = garray (x);
  ok ("garray beyond device memory", false, "(no error)");
catch err
  i1 = gpudot_info ();
  ok ("garray beyond device memory: gpudot:outOfMemory",
      strcmp (err.identifier, "gpudot:outOfMemory")
      && i1.garrays == i0.garrays && abs (i1.memory_free - i0.memory_free) < 2^20,
      sprintf ("[%s] %s", err.identifier, err.message));
end_try_catch

## everything freed: the device's memory is back
clear gx gy more g
__gpudot__ ("release");
f1 = free_gib ();
ok ("device memory back after freeing", abs (f1 - free0) < 0.0625,
    sprintf ("(free %.3f GiB before, %.3f GiB after)", free0, f1));
i2 = gpudot_info ();
ok ("no garrays left", i2.garrays == 0 && i2.garray_bytes == 0, "");
printf ("%d passed, %d failed, %d skipped\n", passed, failed, ncases - passed - failed);
exit (failed > 0);
