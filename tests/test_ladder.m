## gdot (x, y, "kernel", K): the reduction ladder.  Every kernel, every size class (empty,
## one element, below / at / above a block and a warp of vectors, odd tails, large), both
## classes, both accumulators, host and resident operands, against a double reference
## within the forward error bound of the accumulation (the atomic kernels' order varies).

%!function check_ladder (x, y, K, accum, as_garray)
%!  ref = sum (double (x) .* double (y));
%!  mag = sum (abs (double (x) .* double (y)));
%!  n = numel (x);
%!  u = ifelse (isa (x, "single") && strcmp (accum, "native"), eps ("single"), eps) / 2;
%!  ## |error| <= gamma_(n + 1) * sum |x_i y_i| for any summation order, then the
%!  ## rounding of the result to its class
%!  tol = 1.01 * (n + 1) * u * mag + eps (cast (abs (ref), class (x))) + realmin;
%!  if (as_garray)
%!    [d, ms] = gdot (garray (x), garray (y), "kernel", K, "accum", accum);
%!  else
%!    [d, ms] = gdot (x, y, "kernel", K, "accum", accum, "device", "gpu");
%!  endif
%!  assert (class (d), class (x));
%!  assert (isscalar (d));
%!  assert (abs (double (d) - ref) <= tol, sprintf ("%s %s %s n=%d: %g vs %g (tol %g)",
%!          K, class (x), accum, n, double (d), ref, tol));
%!  assert (isscalar (ms) && isfinite (ms) && ms >= 0);
%!endfunction

%!testif ; gpudot_gpu_available ()
%! kernels = {"atomic", "shared", "shuffle", "vector", "fused"};
%! sizes = [0 1 3 31 255 256 257 1000 4097 65537 (2^20 + 3)];
%! for cls = {"single", "double"}
%!   for n = sizes
%!     x = cast (randn (n, 1), cls{1});  y = cast (randn (n, 1), cls{1});
%!     for k = 1:numel (kernels)
%!       for accum = {"native", "double"}
%!         check_ladder (x, y, kernels{k}, accum{1}, false);
%!       endfor
%!       check_ladder (x, y, kernels{k}, "double", true);
%!     endfor
%!   endfor
%! endfor

%!testif ; gpudot_gpu_available ()
%! ## row and column vectors, mixed classes (single result), exact small-integer sums
%! x = single (1:1000);  y = (1000:-1:1)';
%! for K = {"atomic", "shared", "shuffle", "vector", "fused"}
%!   d = gdot (x, y, "kernel", K{1});
%!   assert (class (d), "single");
%!   assert (d, single (sum ((1:1000) .* (1000:-1:1))));
%! endfor

%!testif ; gpudot_gpu_available ()
%! ## the production kernel gives the same bits as a plain gdot call; the shared kernel
%! ## (no atomics) is repeatable
%! x = randn (1e5 + 7, 1);  y = randn (1e5 + 7, 1);
%! assert (gdot (x, y, "kernel", "fused"), gdot (x, y, "device", "gpu"));
%! assert (gdot (x, y, "kernel", "shared"), gdot (x, y, "kernel", "shared"));

%!testif ; gpudot_gpu_available ()
%! ## sums of 2^25 single ones: float accumulation in the atomic kernel stops at 2^24, as
%! ## Octave's single dot does; double accumulation is exact
%! x = ones (2^25, 1, "single");
%! assert (gdot (x, x, "kernel", "atomic", "accum", "native"), single (2^24));
%! assert (gdot (x, x, "kernel", "atomic", "accum", "double"), single (2^25));
%! assert (gdot (x, x, "kernel", "vector", "accum", "double"), single (2^25));

%!error <two real vectors> gdot (ones (3), ones (3), "kernel", "shared")
%!error <two real vectors> gdot ([1i 2], [1 2], "kernel", "shared")
%!error <two real vectors> gdot ([1 2 3], [1 2], "kernel", "shared")
%!error <"native" or "double"> gdot ([1 2], [1 2], "kernel", "shared", "accum", "compensated")
%!error <runs on the GPU> gdot ([1 2], [1 2], "kernel", "vector", "device", "cpu")

%!testif ; ! gpudot_gpu_available ()
%! try
%!   gdot ([1 2], [3 4], "kernel", "shared");
%!   error ("expected gpudot:noDevice");
%! catch err
%!   assert (err.identifier, "gpudot:noDevice");
%! end_try_catch
