## gnorm and gcosine: the issue's named cases, errors, and GPU-only paths.

%!shared gpu
%! gpu = gpudot_gpu_available ();
%! warning ("off", "gpudot:noDevice");

%!test
%! ## overflow and underflow, every mode, both engines where present
%! devs = {"cpu"};
%! if (gpudot_gpu_available ()) devs{end+1} = "gpu"; endif
%! for d = devs
%!   for acc = {"native", "double", "compensated"}
%!     o = {"accum", acc{1}, "device", d{1}};
%!     assert (gnorm ([1e200 1e200], o{:}), sqrt (2) * 1e200, -4 * eps);
%!     r = gnorm (single ([1e30 1e30]), o{:});
%!     assert (class (r), "single");
%!     assert (double (r), sqrt (2) * 1e30, -4 * eps ("single"));
%!     assert (gnorm ([1e-310 1e-310], o{:}) > 0);
%!     assert (gnorm ([1e-310 1e-310], o{:}), sqrt (2) * 1e-310, 2^-1074);
%!     assert (gnorm ([1e200 1; 1e200 1], o{:}), [sqrt(2)*1e200, sqrt(2)], -4 * eps);
%!     assert (gcosine ([1e200 0], [1e200 0], o{:}), 1);
%!     assert (gcosine (1e-300 * [1 1], 1e-300 * [1 -1], o{:}), 0);
%!     assert (isnan (gcosine ([0 0], [1 2], o{:})));
%!     assert (isnan (gcosine ([NaN 1], [1 2], o{:})));
%!     assert (gnorm ([Inf 1], o{:}), Inf);
%!     assert (isnan (gnorm ([NaN 1], o{:})));
%!   endfor
%! endfor
%!test
%! ## p < 0: the true value, 0 where an element is 0 (norm gives Inf there)
%! assert (gnorm ([1 2], -2), (1 + 2^-2)^(-1/2), -4 * eps);
%! assert (gnorm ([1 2 0], -1), 0);
%! assert (gnorm ([Inf 2], -1), 2);
%!test
%! ## norm's conventions: counts for p = 0, "fro" = 2, strings for Inf, empties 0
%! assert (gnorm ([1 0 2 NaN], 0), 3);
%! assert (gnorm ([3 4], "fro"), 5);
%! assert (gnorm ([3 -4], "inf"), 4);
%! assert (gnorm ([3 -4], "-inf"), 3);
%! assert (gnorm ([3 -4], -Inf), 3);
%! assert (gnorm (zeros (1, 0)), 0);
%! assert (gnorm (zeros (1, 0), -Inf), 0);
%! assert (gnorm ([1+1i 2], 3), norm ([1+1i 2], 3), -8 * eps);
%! assert (gnorm (int8 ([3 4])), 5);
%!test
%! ## vecnorm's shapes; dim > ndims gives abs (x)
%! x = randn (4, 5, 3);
%! for dim = 1:3
%!   ## two summation orders of at most 5 terms: relative gap <= 2 (n + 2) u, n = 5
%!   assert (gnorm (x, 2, dim), vecnorm (x, 2, dim), -28 * eps);
%!   assert (gnorm (x, 1, dim), vecnorm (x, 1, dim), -28 * eps);
%!   assert (gnorm (x, Inf, dim), vecnorm (x, Inf, dim));
%! endfor
%! assert (gnorm (x, 2, 4), abs (x));
%!test
%! ## gcosine: query against every column, shapes as gdot
%! D = randn (768, 50);  q = randn (768, 1);
%! ref = (q' * D) ./ (norm (q) * sqrt (sum (D .^ 2)));
%! assert (gcosine (q, D), ref, 4 * 768 * eps);   # |error| <= ~2n u: absolute, cosines <= 1
%! assert (size (gcosine (q', D', 2)), [50 1]);
%! assert (gcosine ([1 2 3], [1; 2; 3]), 1, eps);
%! assert (gcosine ([1 2 3], -[1 2 3]), -1);
%! z = gcosine ([1i 2], [1 1i]);
%! assert (z, dot ([1i 2], [1 1i]) / (norm ([1i 2]) * norm ([1 1i])), 4 * eps);
%!test
%! ## clamping: never above 1 in magnitude, never NaN from a number
%! x = randn (1000, 1);
%! c = gcosine (x, 3 * x);
%! assert (c <= 1 && c >= 1 - 4 * 1000 * eps);     # clamped; error bound ~2n u below 1
%! c = gcosine (single (x), single (-x), "accum", "native");
%! assert (c >= -1);
%!test
%! ## determinism of norms and cosines on the CPU engine
%! x = randn (2^20 + 5, 1);  y = randn (2^20 + 5, 1);
%! a = gnorm (x, "device", "cpu");  b = gcosine (x, y, "device", "cpu");
%! for k = 1:3
%!   assert (isequal (gnorm (x, "device", "cpu"), a));
%!   assert (isequal (gcosine (x, y, "device", "cpu"), b));
%! endfor

%!testif ; gpudot_gpu_available ()
%! ## GPU: determinism over split, warp and row kernels
%! X = {randn(2^22+5, 1), randn(2^20, 8), randn(768, 3000), randn(3, 2^20)};
%! dims = {1, 1, 1, 2};
%! for i = 1:numel (X)
%!   for acc = {"native", "double", "compensated"}
%!     x = single (X{i});
%!     n0 = gnorm (x, 2, dims{i}, "accum", acc{1}, "device", "gpu");
%!     c0 = gcosine (x, x + 1, dims{i}, "accum", acc{1}, "device", "gpu");
%!     for k = 1:3
%!       assert (isequal (gnorm (x, 2, dims{i}, "accum", acc{1}, "device", "gpu"), n0));
%!       assert (isequal (gcosine (x, x + 1, dims{i}, "accum", acc{1}, "device", "gpu"), c0));
%!     endfor
%!   endfor
%! endfor
%!testif ; gpudot_gpu_available ()
%! ## GPU split columns: launches whose states have 1 or 2 live fields (published in as many
%! ## slots a block; each launch's last block empties the slots it read) alternate with ones
%! ## of 3 and 4 (through partials): every call gives its first call's bits, and the CPU
%! ## engine's value
%! n = 2^22 + 5;
%! x = single (randn (n, 1));  y = single (randn (n, 1));
%! z = complex (single (randn (n, 1)), single (randn (n, 1)));
%! calls = {{@gdot, x, y}, ...                        # 1 field
%!          {@gdot, x, y, "accum", "compensated"}, ... # 2
%!          {@gdot, z, y}, ...                        # 2 (complex)
%!          {@gcosine, x, y}, ...                     # 3
%!          {@gcosine, z, y}, ...                     # 4 (complex)
%!          {@gdot, z, z, "accum", "compensated"}, ... # 4
%!          {@gnorm, x, 2, "accum", "compensated"}, ...# 2
%!          {@gnorm, z}};                             # 1
%! r0 = cell (size (calls));
%! for c = 1:numel (calls)
%!   r0{c} = feval (calls{c}{:}, "device", "gpu");
%!   ref = double (feval (calls{c}{:}, "device", "cpu"));
%!   assert (double (r0{c}), ref, -1e-6);
%! endfor
%! for round = 1:3
%!   for c = [numel(calls):-1:1, 1:2:numel(calls), 2:2:numel(calls)]
%!     r = feval (calls{c}{:}, "device", "gpu");
%!     assert (typecast ([real(r) imag(r)], "uint32"), typecast ([real(r0{c}) imag(r0{c})], "uint32"));
%!   endfor
%! endfor
%!testif ; gpudot_gpu_available ()
%! ## GPU chunked path (norms read x only; cosines carry 10-field states between slabs)
%! unwind_protect
%!   __gpudot__ ("release");
%!   __gpudot__ ("staging_cap", 256 * 1024);
%!   cases = {randn(2^20+3, 1), randn(2^16, 9), randn(7, 2^16)};
%!   dims = {1, 1, 2};
%!   for i = 1:numel (cases)
%!     x = cases{i};  y = x + 1;
%!     for p = {2, 1, Inf, 3, -1.5}
%!       assert (gnorm (x, p{1}, dims{i}, "device", "gpu"), gnorm (x, p{1}, dims{i}, "device", "cpu"), -1e-12);
%!     endfor
%!     assert (gcosine (x, y, dims{i}, "device", "gpu"), gcosine (x, y, dims{i}, "device", "cpu"), 1e-12);
%!   endfor
%! unwind_protect_cleanup
%!   __gpudot__ ("staging_cap", 0);
%!   __gpudot__ ("release");
%! end_unwind_protect

## errors
%!error <Invalid call> gnorm ()
%!error <Invalid call> gcosine (1)
%!error id=gpudot:badType gnorm ("abc")
%!error id=gpudot:badType gnorm (true)
%!error id=gpudot:badType gnorm ({1})
%!error id=gpudot:badType gcosine ({1}, 1)
%!error id=gpudot:badType gcosine (1, @sin)
%!error <gnorm: X must be a numeric array> gnorm (struct ())
%!error id=gpudot:badOption gnorm ([1 2], "bad")
%!error id=gpudot:badOption gnorm ([1 2], 1i)
%!error id=gpudot:badOption gnorm ([1 2], [1 2])
%!error id=gpudot:badOption gnorm ([1 2], NaN)
%!error id=gpudot:badOption gnorm ([1 2], 2, "accum", "quad")
%!error id=gpudot:badOption gnorm ([1 2], 2, 1, "device")
%!error id=gpudot:badDim gnorm ([1 2], 2, 0)
%!error id=gpudot:badDim gnorm ([1 2], 2, 1.5)
%!error id=gpudot:badDim gnorm ([1 2], 2, [1 2])
%!error id=gpudot:sizeMismatch gcosine ([1 2 3], [1 2])
%!error id=gpudot:badDim gcosine ([1 2], [1 2], -1)
%!error id=gpudot:badOption gcosine ([1 2], [1 2], "accum", "x")
%!error <gcosine: sizes of X and Y> gcosine (ones (2, 3), ones (3, 2))
%!error id=gpudot:badOption __gpudot__ ("__entry__", "gnorm", [1 2], "bad")
%!error id=gpudot:badOption __gpudot__ ("__entry__", "gnorm", [1 2], 1i)
%!error id=gpudot:badType __gpudot__ ("__entry__", "gnorm", true)
%!error id=gpudot:badType __gpudot__ ("__entry__", "gcosine", 1, true)
