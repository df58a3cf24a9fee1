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

## the first k positions of the value v in x: x holds copies of the block xb (p elements)
## up to n - 3, then tail
function pos = positions (xb, p, n, tail, v, k)
  at = find (xb == v);
  pos = [];
  for b = 0:ceil ((n - 3) / p) - 1
    if (numel (pos) >= k)
      break;
    endif
    c = at + b * p;
    pos = [pos; c(c <= n - 3)];
  endfor
  t = n - 3 + find (tail == v);
  pos = [pos; t];
  pos = pos(1:min (k, end));
endfunction

global passed failed
passed = failed = 0;
here = fileparts (mfilename ("fullpath"));
addpath (here);
gpudot_test_paths ();
ncases = 33;
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

## indices past 2^31 and 2^32 (where an int32 or a uint32 wraps): max, min, maxk, mink,
## sum, mean, any, all, the exact sum (the same bits on both engines) and indexing
[m, i] = max (gx);
ok ("max garray 2^32+3: the last element", m == 3000 && i == n, sprintf ("(%g at %d)", m, i));
v1 = min (xb);
[m, i] = min (gx);
ok ("min garray 2^32+3", m == v1 && i == positions (xb, p, n, tail, v1, 1),
    sprintf ("(%g at %d)", m, i));
[b, i] = maxk (gx, 5);
vm = max (xb);
ok ("maxk garray 2^32+3, ties to the lowest index",
    isequal (b, single ([3000; 2000; 1000; vm; vm]))
    && isequal (i, [n; n - 1; n - 2; positions(xb, p, n, tail, vm, 2)]), mat2str (i'));
w1 = positions (xb, p, n, tail, v1, 4);    # (4 at 2^32 + 3: 63 whole blocks)
[b, i] = mink (gx, numel (w1));
ok ("mink garray 2^32+3, ties to the lowest index",
    isequal (b, repmat (v1, numel (w1), 1)) && isequal (i, w1), mat2str (i'));
check ("sum garray 2^32+3", sum (gx), sx1, 1e-6);
check ("mean garray 2^32+3", mean (gx), sx1 / n, 1e-6);
ok ("any and all garray 2^32+3",
    any (gx) && all (gx) == (all (xb(1:min (p, n - 3))) && all (tail)), "");
t0 = tic ();  e = gdot (gx, gy, "accum", "exact");  t = toc (t0);
check (sprintf ("gdot garray 2^32+3, exact (%.3f s)", t), e, sxy, 1e-6);
t0 = tic ();  ec = gdot (x, y, "accum", "exact", "device", "cpu");  t = toc (t0);
ok (sprintf ("gdot 2^32+3 exact: the same bits on the CPU engine (%.2f s)", t),
    isequal (typecast (e, "uint32"), typecast (ec, "uint32")), sprintf ("(%.9g, %.9g)", e, ec));
check ("gnorm garray 2^32+3, exact", gnorm (gx, 2, "accum", "exact"), sqrt (sxx), 1e-6);
sub = [n, n - 3, 2^32 + 1, 2^31 + 3, 2^31, 1];
sub = sub(sub <= n);
ok ("garray 2^32+3 indexed past 2^31 and 2^32",
    isequal (gather (gx(sub)), x(sub)) && isequal (gather (gx(end-4:end)), x(end-4:end))
    && gather (gx(end)) == 3000, "");

## a value planted past 2^31 and its tie past 2^32, and the smallest value past 2^32
hi = min (2^31 + 5, floor (n / 2));
hi2 = max (hi + 1, n - 8);
lo = n - 5;
keep = x([hi hi2 lo]);
x([hi hi2 lo]) = [4000 4000 -1];
gz = garray (x);
x([hi hi2 lo]) = keep;
[m, i] = max (gz);
ok ("max garray 2^32+3: a value past 2^31, its tie later", m == 4000 && i == hi,
    sprintf ("(%g at %d)", m, i));
[m, i] = min (gz);
ok ("min garray 2^32+3: a value past 2^32", m == -1 && i == lo, sprintf ("(%g at %d)", m, i));
[b, i] = maxk (gz, 3);
ok ("maxk garray 2^32+3: a tie past 2^31 and 2^32",
    isequal (b, single ([4000; 4000; 3000])) && isequal (i, [hi; hi2; n]), mat2str (i'));
[b, i] = mink (gz, 2);
ok ("mink garray 2^32+3: past 2^32, then the block's smallest",
    isequal (b, single ([-1; v1])) && isequal (i, [lo; positions(xb, p, n, tail, v1, 1)]),
    mat2str (i'));
clear gz

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

clear gx gy more g y

## a matrix of more than 2^31 columns (2 x (2^31 + 1) singles): gsearch on both engines,
## max and min along rows; two equal columns near the end (elements past 2^32) planted as
## the best match
Dh = reshape (x(1:end-1), 2, []);
nc = columns (Dh);
c1 = nc - min (1000, floor (nc / 2));
c2 = c1 + floor ((nc - c1) / 2);
Dh(:, [c1 c2]) = [1 1; -1 -1];
D = garray (Dh);
q = single ([1; -1]);
for dev = {"gpu", "cpu"}
  t0 = tic ();
  if (strcmp (dev{1}, "gpu"))
    [S, I] = gsearch (q, D, 2);
  else
    [S, I] = gsearch (q, Dh, 2);
  endif
  t = toc (t0);
  ok (sprintf ("gsearch 2 x %d, %s: two equal columns, elements past 2^32 (%.2f s)", nc, dev{1}, t),
      isequal (I, [c1; c2]) && all (abs (S - 1) < 1e-6), sprintf ("(%s)", mat2str (I')));
endfor
[S, I] = gsearch (single ([0; 1]), D, 1, "metric", "dot");
ok ("gsearch 2 x 2^31+1, dot: the last column", I == nc && S == 2000, sprintf ("(%d)", I));
[wm, wi] = max (Dh, [], 2);
[m, i] = max (D, [], 2);
ok ("max garray 2 x 2^31+1 along rows", isequal (m, wm) && isequal (i, wi), mat2str (i'));
[wm, wi] = min (Dh, [], 2);
[m, i] = min (D, [], 2);
ok ("min garray 2 x 2^31+1 along rows", isequal (m, wm) && isequal (i, wi) && i(2) == c1,
    mat2str (i'));
[b, i] = maxk (D, 2, 2);
ok ("maxk garray 2 x 2^31+1 along rows: the last column, then the first planted",
    isequal (b(:, 1), single ([1000; 2000])) && isequal (i(:, 1), [nc; nc])
    && b(1, 2) == 1 && i(1, 2) == c1, mat2str (i));
clear D Dh

## everything freed: the device's memory is back
__gpudot__ ("release");
f1 = free_gib ();
ok ("device memory back after freeing", abs (f1 - free0) < 0.0625,
    sprintf ("(free %.3f GiB before, %.3f GiB after)", free0, f1));
i2 = gpudot_info ();
ok ("no garrays left", i2.garrays == 0 && i2.garray_bytes == 0, "");
printf ("%d passed, %d failed, %d skipped\n", passed, failed, ncases - passed - failed);
exit (failed > 0);
