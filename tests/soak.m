## gpudot soak (make soak): many calls in one session, memory must stay flat.
##
##   GPUDOT_SOAK_SMALL (default 1e6) small calls: gdot, gnorm, gcosine on vectors of 1 to
##     4096 elements, single and double, real and complex, host data (both engines where a
##     GPU is usable) and garrays; every 64th call an error (bad size, class, DIM or option);
##     every 256th a garray made and dropped.
##   GPUDOT_SOAK_LARGE (default 1e4) large calls: 2^20-element vectors and 2^12 x 2^8
##     matrices, host data through each engine and garrays.
## Every 101st call is checked against a double reference.  Octave's resident memory
## (VmRSS) and, with a GPU, the device's free memory are read after a warm-up and at every
## tenth of the run, and must not grow (see the end for the rule).  Prints the readings and ends with one line
##   soak: N calls, N checked, N errors raised, 0 bad; small: rss A -> B MiB, device ...
## exiting non-zero on any failure.

1;

function r = rss_mib ()
  s = fileread ("/proc/self/status");
  r = sscanf (regexp (s, 'VmRSS:\s*(\d+)', "tokens", "once"){1}, "%d") / 1024;
endfunction

function f = dev_free_mib (gpu)
  f = NaN;
  if (gpu)
    i = gpudot_info ();
    f = i.memory_free / 2^20;
  endif
endfunction

function v = ref_of (op, x, y)
  x = double (x(:));  y = double (y(:));
  switch (op)
    case 1
      v = sum (conj (x) .* y);
    case 2
      v = norm (x);
    otherwise
      v = sum (conj (x) .* y) / (norm (x) * norm (y));
  endswitch
endfunction

here = fileparts (mfilename ("fullpath"));
addpath (here);
gpudot_test_paths ();
warning ("off", "gpudot:noDevice");
gpu = gpudot_gpu_available ();
nsmall = str2double (getenv ("GPUDOT_SOAK_SMALL"));
nlarge = str2double (getenv ("GPUDOT_SOAK_LARGE"));
if (isnan (nsmall)) nsmall = 1e6; endif
if (isnan (nlarge)) nlarge = 1e4; endif
info = gpudot_info ();
printf ("soak: gpudot %s, backend %s %s; %d small + %d large calls\n", info.version,
        info.backend, info.device_name, nsmall, nlarge);
rand ("seed", 6);  randn ("seed", 6);

## operand sets, rotated: host arrays and their garrays
nset = 16;
xs = ys = gx = gy = cell (1, nset);
for j = 1:nset
  n = [1 2 3 7 31 32 33 100 255 256 257 1000 1024 1500 4095 4096](j);
  x = randn (n, 1) + 0.1;  y = randn (n, 1) - 0.1;
  if (mod (j, 4) == 1)
    x = complex (x, randn (n, 1));
  endif
  if (mod (j, 2) == 0)
    x = single (x);  y = single (y);
  endif
  xs{j} = x;  ys{j} = y;
  gx{j} = garray (x);  gy{j} = garray (y);
endfor
fns = {@gdot, @gnorm, @gcosine};
devs = {"cpu", "gpu"};
ndev = 1 + gpu;

ncheck = nerr = nbad = 0;
marks = lmarks = [];
total = nsmall + nlarge;
warm = min (1e4, floor (nsmall / 10));
t0 = tic ();
for i = 1:nsmall
  j = mod (i, nset) + 1;
  op = mod (i, 3) + 1;
  kind = mod (floor (i / 3), 2 + ndev);   # 0 garray, 1 auto (host), 2.. a named engine
  x = xs{j};  y = ys{j};
  if (kind == 0)
    a = gx{j};  b = gy{j};  extra = {};
  elseif (kind == 1)
    a = x;  b = y;  extra = {};
  else
    a = x;  b = y;  extra = {"device", devs{kind - 1}};
  endif
  if (op == 2)
    v = gnorm (a, 2, extra{:});
  elseif (op == 1)
    v = gdot (a, b, extra{:});
  else
    v = gcosine (a, b, extra{:});
  endif
  if (mod (i, 101) == 0)
    ncheck++;
    want = ref_of (op, x, y);
    tol = 1e-5 * max (1, abs (want)) * (1 + 1e-3 * numel (x));
    if (! (abs (double (v) - want) <= tol))
      nbad++;
      printf ("BAD small call %d: op %d, set %d, kind %d: %.17g vs %.17g\n", i, op, j, kind, v, want);
    endif
  endif
  if (mod (i, 64) == 0)                 # an error path: bad size, class, option
    try
      switch (mod (i / 64, 4))
        case 0
          gdot (ones (2, 3), ones (3, 2));
        case 1
          gnorm ({1});
        case 2
          gcosine (gx{j}, gy{j}, 0);
        otherwise
          gdot (x, y, "accum", "nonsense");
      endswitch
      nbad++;
      printf ("BAD small call %d: no error raised\n", i);
    catch err
      if (strncmp (err.identifier, "gpudot:", 7))
        nerr++;
      else
        nbad++;
        printf ("BAD small call %d: [%s] %s\n", i, err.identifier, err.message);
      endif
    end_try_catch
  endif
  if (mod (i, 256) == 0)                # garray churn
    g = garray (x);
    clear g
  endif
  if (i == warm || mod (i, max (1, floor (nsmall / 10))) == 0)
    marks(end+1, :) = [i rss_mib() dev_free_mib(gpu)];
  endif
endfor
tsmall = toc (t0);

## large calls
X = randn (2^20, 4);  Xs = single (X);
M = randn (2^12, 2^8);  Ms = single (M);
GX = garray (X);  GXs = garray (Xs);  GM = garray (M);
t1 = tic ();
for i = 1:nlarge
  c = mod (i, 4) + 1;
  kind = mod (floor (i / 4), 2 + ndev);
  if (mod (i, 2))
    A = X(:, c);  G = GX;  B = X(:, mod (c, 4) + 1);  Aw = Xs;
  else
    A = Xs(:, c);  G = GXs;  B = Xs(:, mod (c, 4) + 1);  Aw = Xs;
  endif
  switch (kind)
    case 0
      v = gdot (G, G);                # four columns at once, resident
      wantf = @() sum (double (gather (G)) .^ 2);
    case 1
      v = gcosine (A, B);
      wantf = @() ref_of (3, A, B);
    otherwise
      if (mod (i, 3) == 0)
        v = gnorm (M, 2, 1, "device", devs{kind - 1});
        wantf = @() sqrt (sum (M .^ 2, 1));
      else
        v = gdot (A, B, "device", devs{kind - 1});
        wantf = @() ref_of (1, A, B);
      endif
  endswitch
  if (mod (i, 101) == 0)
    ncheck++;
    want = wantf ();
    if (! all (abs (double (v) - want) <= 1e-4 * max (abs (want))))
      nbad++;
      printf ("BAD large call %d (kind %d)\n", i, kind);
    endif
  endif
  if (mod (i, max (1, floor (nlarge / 10))) == 0)
    clear A B v want wantf               # read with the same arrays live each time
    lmarks(end+1, :) = [nsmall + i rss_mib() dev_free_mib(gpu)];
  endif
endfor
tlarge = toc (t1);
clear GX GXs GM

printf ("soak: small calls %.1f s (%.1f us each), large calls %.1f s (%.2f ms each)\n",
        tsmall, 1e6 * tsmall / max (1, nsmall), tlarge, 1e3 * tlarge / max (1, nlarge));
## Each phase is judged on its readings after a warm-up (the small calls' first 10^4, the
## large calls' first tenth): the highest reading of its second half against the highest of
## its first half.  Freed blocks of the large calls' 8 MiB temporaries stay in glibc's heap
## for a while, so their RSS steps between two levels 16 MiB apart (H100 run: 271.9 and
## 287.9 MiB); a leak grows without bound.  Tolerance: 4 MiB for the small calls (4 bytes
## a call over half a million), 16 MiB for the large; device memory within 2 MiB.
printf ("%10s %12s %16s\n", "calls", "rss MiB", "device free MiB");
printf ("%10d %12.1f %16.1f\n", [marks; lmarks]');
summary = "";
for ph = {{"small", marks, 4}, {"large", lmarks, 16}}
  m = ph{1}{2};
  if (rows (m) < 2)
    continue;
  endif
  h = floor (rows (m) / 2);
  drss = max (m(h+1:end, 2)) - max (m(1:h, 2));
  ddev = min (m(h+1:end, 3)) - min (m(1:h, 3));
  if (! (drss <= ph{1}{3} && (! gpu || abs (ddev) <= 2)))
    nbad++;
    printf ("BAD %s calls: memory grew: rss %+.1f MiB, device free %+.1f MiB\n", ph{1}{1}, drss, ddev);
  endif
  summary = [summary sprintf("; %s: rss %.1f -> %.1f MiB (peak %+.1f), device free %.1f -> %.1f MiB",
                             ph{1}{1}, m(1, 2), m(end, 2), drss, m(1, 3), m(end, 3))];
endfor
printf ("soak: %d calls, %d checked, %d errors raised, %d bad%s\n", total, ncheck, nerr, nbad, summary);
exit (nbad > 0);
