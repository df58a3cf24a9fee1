## Copyright (C) 2026 gpudot developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {} gpudot_demo (@var{name})
## @deftypefnx {} {} gpudot_demo (@var{name}, @var{outdir})
## @deftypefnx {} {} gpudot_demo (@var{name}, @var{outdir}, @var{size})
## @deftypefnx {} {@var{T} =} gpudot_demo (@dots{})
## The teaching demos: each prints a table and writes a PNG plot to @var{outdir} (default
## @code{tempdir}) without a display (gnuplot, else Python's matplotlib).
##
## @table @code
## @item "ladder"
## GPU time and effective GB/s of each kernel of the reduction ladder (@code{gdot}'s
## @code{"kernel"} option: atomic, shared, shuffle, vector, fused) on resident data, for
## n = 2^10 @dots{} 2^26, against Octave's @code{dot}; and the time of a whole call on
## host data the textbook way (@code{cudaMalloc} + @code{cudaMemcpy} every call), through
## the pinned staging ring, and on a @code{garray}.
## @item "accuracy"
## Relative error against n of @code{gdot}'s @code{"native"}, @code{"double"} and
## @code{"compensated"} accumulation and of Octave's @code{dot}, single and double, and
## two sums only @code{"exact"} gets right.
## @item "overflow"
## @code{gnorm} against @code{norm} and @code{vecnorm} on vectors scaled from the
## subnormal range to the overflow threshold.
## @item "search"
## The best 10 cosines of 10 queries among many embeddings (768 x 10^6 single on a GPU):
## @code{gsearch} on the GPU and on the CPU engine, against the loop of @code{gcosine} and
## @code{sort} and against Octave's BLAS and @code{sort}.
## @end table
##
## @var{size}: @code{"full"} (the sizes above; the default with a GPU) or
## @code{"quick"} (smaller, for machines without a GPU and for CI).  @var{T} returns the
## table as a struct array.
## @seealso{gdot, gnorm, gcosine, garray}
## @end deftypefn

function T = gpudot_demo (name, outdir = tempdir (), sz = "")

  if (nargin < 1 || ! ischar (name))
    print_usage ();
  endif
  gpu = gpudot_gpu_available ();
  if (isempty (sz))
    sz = ifelse (gpu, "full", "quick");
  endif
  full = strcmp (sz, "full");
  if (! exist (outdir, "dir"))
    mkdir (outdir);
  endif
  warning ("off", "gpudot:noDevice", "local");
  info = gpudot_info ();
  where = ifelse (gpu, info.device_name, "no GPU: CPU engine only");
  switch (name)
    case "ladder"
      T = demo_ladder (outdir, full, gpu, where);
    case "accuracy"
      T = demo_accuracy (outdir, full, where);
    case "overflow"
      T = demo_overflow (outdir, where);
    case "search"
      T = demo_search (outdir, full, gpu, where);
    otherwise
      error ("gpudot:badOption",
             "gpudot_demo: NAME must be \"ladder\", \"accuracy\", \"overflow\" or \"search\"");
  endswitch
  if (nargout == 0)
    clear T;
  endif

endfunction

## us per call of CODE (evaluated here, with the variables in V), median of rounds of a
## plain loop sized to about 0.15 s in all
function t = per_call_us (code, V)
  for [val, key] = V
    eval ([key " = val;"]);
  endfor
  eval (sprintf ("t0_ = tic (); %s; t1_ = toc (t0_);", code));
  reps = max (1, min (2000, round (0.05 / max (t1_, 1e-6))));
  r = zeros (3, 1);
  for k = 1:3
    eval (sprintf ("t0_ = tic (); for i_ = 1:%d, %s; end; r(k) = toc (t0_) / %d;", reps, code, reps));
  endfor
  t = 1e6 * median (r);
endfunction

## median kernel time (ms, CUDA events) of gdot (g, h, "kernel", K)
function ms = kernel_ms (g, h, K)
  [~, m1] = gdot (g, h, "kernel", K);
  reps = max (3, min (30, round (50 / max (m1, 1e-3))));
  m = zeros (reps, 1);
  for r = 1:reps
    [~, m(r)] = gdot (g, h, "kernel", K);
  endfor
  ms = median (m);
endfunction

function plotted (png, ok)
  if (ok)
    printf ("plot: %s\n", png);
  endif
endfunction

function T = demo_ladder (outdir, full, gpu, where)
  logs = ifelse (full, 10:2:26, 10:2:20);
  kernels = {"atomic", "shared", "shuffle", "vector", "fused"};
  printf ("\nThe reduction ladder: one single-precision dot product (%s)\n", where);
  if (gpu)
    printf ("kernel columns: GPU time of the kernel alone (CUDA events), data already on the GPU\n");
    printf ("call columns: a whole call from Octave, in us\n\n");
  else
    printf ("a whole call from Octave, in us: Octave's dot and gdot's CPU engine (no GPU here)\n\n");
  endif
  hdr = sprintf ("%6s %10s %10s", "log2n", "dot us", "gdot cpu");
  if (gpu)
    hdr = [hdr sprintf(" %9s", kernels{:}) sprintf(" %10s %10s %10s", "textbook", "ring", "garray")];
  endif
  printf ("%s\n", hdr);
  T = struct ("n", {}, "dot_us", {}, "cpu_us", {}, "kernel_us", {}, "textbook_us", {},
              "ring_us", {}, "garray_us", {});
  for lg = logs
    n = 2 ^ lg;
    x = single (rand (n, 1) - 0.5);  y = single (rand (n, 1) - 0.5);
    V = struct ("x", x, "y", y);
    row.n = n;
    row.dot_us = per_call_us ("dot (x, y)", V);
    row.cpu_us = per_call_us ("gdot (x, y, 'device', 'cpu')", V);
    row.kernel_us = nan (1, numel (kernels));
    row.textbook_us = row.ring_us = row.garray_us = NaN;
    line = sprintf ("%6d %10.1f %10.1f", lg, row.dot_us, row.cpu_us);
    if (gpu)
      g = garray (x);  h = garray (y);
      for k = 1:numel (kernels)
        row.kernel_us(k) = 1e3 * kernel_ms (g, h, kernels{k});
      endfor
      V.g = g;  V.h = h;
      row.textbook_us = per_call_us ("gdot (x, y, 'kernel', 'fused')", V);
      row.ring_us = per_call_us ("gdot (x, y, 'device', 'gpu')", V);
      row.garray_us = per_call_us ("gdot (g, h)", V);
      line = [line sprintf(" %9.1f", row.kernel_us) ...
              sprintf(" %10.1f %10.1f %10.1f", row.textbook_us, row.ring_us, row.garray_us)];
      clear g h
      V = rmfield (V, {"g", "h"});
    endif
    printf ("%s\n", line);
    T(end+1) = row;
  endfor
  n = [T.n];
  gbs = @(us) 8 * n ./ us * 1e-3;   # two single operands read
  s = struct ("name", {"Octave dot (host)", "gdot CPU engine (host)"},
              "x", {n, n}, "y", {gbs([T.dot_us]), gbs([T.cpu_us])});
  if (gpu)
    K = reshape ([T.kernel_us], numel (kernels), []);
    for k = 1:numel (kernels)
      s(end+1) = struct ("name", sprintf ("kernel %s (resident)", kernels{k}), "x", n, "y", gbs (K(k, :)));
    endfor
    s(end+1) = struct ("name", "call: textbook malloc+memcpy (host)", "x", n, "y", gbs ([T.textbook_us]));
    s(end+1) = struct ("name", "call: pinned staging ring (host)", "x", n, "y", gbs ([T.ring_us]));
    s(end+1) = struct ("name", "call: garray (resident)", "x", n, "y", gbs ([T.garray_us]));
  endif
  png = fullfile (outdir, "ladder.png");
  plotted (png, __gpudot_plot__ (png, sprintf ("Dot product of two single vectors: effective bandwidth (%s)", where),
                                 "n (elements)", "GB/s (2 x 4n bytes / time)", s, true, true));
endfunction

function T = demo_accuracy (outdir, full, where)
  logs = ifelse (full, 10:25, 10:2:20);
  printf ("\nAccuracy: relative error against a reference in twice double precision (%s)\n", where);
  printf ("data: uniform [0, 1) (no cancellation, so float sums drift as n grows)\n\n");
  names = {"single dot", "single gdot native", "single gdot double", "single gdot compensated", ...
           "double dot", "double gdot double", "double gdot compensated"};
  printf ("%6s", "log2n");
  printf (" %11s", "s:dot", "s:native", "s:double", "s:comp", "d:dot", "d:double", "d:comp");
  printf ("\n");
  T = struct ("n", {}, "err", {});
  rand ("seed", 1);
  for lg = logs
    n = 2 ^ lg;
    xs = single (rand (n, 1));  ys = single (rand (n, 1));
    xd = rand (n, 1);  yd = rand (n, 1);
    rs = gdot (double (xs), double (ys), "accum", "compensated", "device", "cpu");
    rd = gdot (xd, yd, "accum", "compensated", "device", "cpu");   # Dot2: as if in 2x double
    ## the double reference of double data: its error is ~ 2^-106 n, far below what we plot
    v = [double(dot (xs, ys)), double(gdot (xs, ys, "accum", "native")), ...
         double(gdot (xs, ys)), double(gdot (xs, ys, "accum", "compensated"))];
    w = [dot(xd, yd), gdot(xd, yd), gdot(xd, yd, "accum", "compensated")];
    e = [abs(v - rs) / rs, abs(w - rd) / rd];
    printf ("%6d", lg);  printf (" %11.2e", e);  printf ("\n");
    T(end+1) = struct ("n", n, "err", e);
  endfor
  x = ones (2^25, 1, "single");
  printf ("\nsum of 2^25 single ones: dot %d, gdot native %d, gdot (double) %d\n",
          dot (x, x), gdot (x, x, "accum", "native"), gdot (x, x));
  printf (["(a float running sum stops at 2^24 = 16777216: the reference BLAS's dot does;" ...
           " OpenBLAS\n and gdot's native mode keep many partial sums and do not)\n"]);
  if (gpudot_gpu_available ())
    printf ("one float accumulator on the GPU (the atomic ladder kernel): %d\n",
            gdot (x, x, "kernel", "atomic", "accum", "native"));
  endif
  ## past twice double's precision, and past the double range: "exact" rounds once
  a = [2^100 1 2^-60 -2^100 -1];
  printf ("\nsum of [2^100 1 2^-60 -2^100 -1] (exactly 2^-60 = %.6g):\n", 2^-60);
  printf ("  dot %.6g, gdot double %.6g, compensated %.6g, exact %.6g\n", dot (a, ones (1, 5)),
          gdot (a, ones (1, 5)), gdot (a, ones (1, 5), "accum", "compensated"),
          gdot (a, ones (1, 5), "accum", "exact"));
  b = [1e200 1e200 3];  c = [1e200 -1e200 0.5];
  printf ("[1e200 1e200 3] . [1e200 -1e200 0.5] (exactly 1.5):\n");
  printf ("  dot %g, gdot double %g, compensated %g, exact %g\n", dot (b, c), gdot (b, c),
          gdot (b, c, "accum", "compensated"), gdot (b, c, "accum", "exact"));
  E = reshape ([T.err], numel (names), []);
  E(E == 0) = 1e-18;   # exact results, drawn at the bottom of the log axis
  s = struct ("name", names, "x", {[T.n]}, "y", num2cell (E, 2)');
  png = fullfile (outdir, "accuracy.png");
  plotted (png, __gpudot_plot__ (png, "Relative error of x . y (uniform [0,1) data; exact = 1e-18)",
                                 "n (elements)", "relative error", s, true, true));
endfunction

function T = demo_overflow (outdir, where)
  printf ("\nOverflow and underflow: 2-norms of 1000 values scaled by 2^k (%s)\n", where);
  printf ("relative error against the exactly rescaled norm; Inf or 0 count as error 1\n\n");
  printf ("%7s %7s %11s %11s %11s\n", "class", "k", "gnorm", "norm", "vecnorm");
  T = struct ("cls", {}, "k", {}, "err", {});
  rand ("seed", 2);
  u = 0.5 + rand (1000, 1) / 2;
  for cls = {"double", "single"}
    ks = ifelse (strcmp (cls{1}, "double"), -1020:40:1000, -125:10:115);   # results stay normal
    for k = ks
      x = cast (u * 2 ^ k, cls{1});
      ref = 2 ^ k * sqrt (sum (double (x / cast (2 ^ k, cls{1})) .^ 2));   # scaling by 2^k is exact
      v = double ([gnorm(x), norm(x), vecnorm(x)]);
      e = min (abs (v - ref) / ref, 1);
      e(! isfinite (v) | v == 0) = 1;
      printf ("%7s %7d %11.2e %11.2e %11.2e\n", cls{1}, k, e);
      T(end+1) = struct ("cls", cls{1}, "k", k, "err", e);
    endfor
  endfor
  s = struct ("name", {}, "x", {}, "y", {});
  nm = {"gnorm", "norm", "vecnorm"};
  for cls = {"double", "single"}
    R = T(strcmp ({T.cls}, cls{1}));
    E = reshape ([R.err], 3, []);
    E(E == 0) = 1e-18;
    for j = 1:3
      s(end+1) = struct ("name", sprintf ("%s %s", cls{1}, nm{j}), "x", [R.k], "y", E(j, :));
    endfor
  endfor
  png = fullfile (outdir, "overflow.png");
  plotted (png, __gpudot_plot__ (png, "2-norm of 1000 values of magnitude 2^k: relative error (1 = Inf or 0; exact = 1e-18)",
                                 "k", "relative error", s, false, true));
endfunction

function T = demo_search (outdir, full, gpu, where)
  d = ifelse (full, 768, 128);
  ms = ifelse (full, 10 .^ (3:6), 10 .^ (3:5));
  nq = 10;
  printf ("\nSimilarity search: the best 10 of each of %d queries among m embeddings of %d singles (%s)\n\n",
          nq, d, where);
  printf ("%9s %14s %14s %14s %14s %8s\n", "m", "gsearch GPU", "gsearch CPU", "gcosine+sort", "Octave BLAS",
          "same");
  rand ("seed", 3);
  E = single (rand (d, ms(end)) - 0.5);
  Q = single (rand (d, nq) - 0.5);
  T = struct ("m", {}, "gpu_us", {}, "cpu_us", {}, "loop_us", {}, "octave_us", {});
  for m = ms
    Em = E(:, 1:m);
    V = struct ("Q", Q, "Em", Em);
    [~, I] = gsearch (Q, Em, 10);
    t_cpu = per_call_us ("gsearch (Q, Em, 10)", V);
    ## what a script does without gsearch: every score, then a sort (Octave's BLAS), and
    ## the loop over queries of gcosine and sort
    t_oct = per_call_us ("[~, J] = sort ((Em' * Q) ./ (sqrt (sumsq (Em, 1))' * sqrt (sumsq (Q, 1))), 'descend')", V);
    Ed = double (Em);   # "same": against scores in double
    S = (Ed' * double (Q)) ./ (sqrt (sumsq (Ed, 1))' * sqrt (sumsq (double (Q), 1)));
    [~, J] = sort (S, "descend");
    ok = isequal (I, J(1:10, :));
    t_gpu = t_loop = NaN;
    if (gpu)
      G = garray (Em);
      V.G = G;
      [~, Ig] = gsearch (Q, G, 10);
      ok = ok && isequal (Ig, I);
      t_gpu = per_call_us ("gsearch (Q, G, 10)", V);
      t_loop = per_call_us ("for j = 1:columns (Q), [~, K] = sort (gcosine (Q(:, j), G), 'descend'); end", V);
      clear G
    endif
    printf ("%9d %14.1f %14.1f %14.1f %14.1f %8s\n", m, t_gpu, t_cpu, t_loop, t_oct, ifelse (ok, "yes", "NO"));
    T(end+1) = struct ("m", m, "gpu_us", t_gpu, "cpu_us", t_cpu, "loop_us", t_loop, "octave_us", t_oct);
  endfor
  s = struct ("name", {"gsearch GPU (resident)", "gcosine + sort per query (GPU)", "gsearch CPU engine", ...
                       "Octave BLAS scores + sort"},
              "x", {[T.m]}, "y", {[T.gpu_us], [T.loop_us], [T.cpu_us], [T.octave_us]});
  if (! gpu)
    s(1:2) = [];
  endif
  png = fullfile (outdir, "search.png");
  plotted (png, __gpudot_plot__ (png, sprintf ("The best 10 of %d queries among m embeddings (d = %d, single)", nq, d),
                                 "m (embeddings)", "time per call (us)", s, true, true));
endfunction

%!error <Invalid call> gpudot_demo ()
%!error id=gpudot:badOption gpudot_demo ("bogus", tempdir (), "quick")
