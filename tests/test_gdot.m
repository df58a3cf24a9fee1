## gdot: semantics beyond the grid, errors, determinism, GPU-only paths.
## GPU blocks use %!testif with a run-time condition, so they count as skipped without one.

%!shared gpu
%! gpu = gpudot_gpu_available ();
%! warning ("off", "gpudot:noDevice");

## ---- semantics ----
%!test
%! ## dot's shapes for empties
%! assert (size (gdot ([], [])), size (dot ([], [])));
%! assert (size (gdot (zeros (0, 3), zeros (0, 3))), [1 3]);
%! assert (gdot (zeros (0, 3), zeros (0, 3)), zeros (1, 3));
%! assert (size (gdot (zeros (3, 0), zeros (3, 0))), size (dot (zeros (3, 0), zeros (3, 0))));
%! assert (gdot (zeros (1, 0), zeros (0, 1)), 0);
%! assert (size (gdot (zeros (2, 3, 0), zeros (2, 3, 0))), [1 3 0]);
%!test
%! ## vector rule only without DIM; with DIM, dot's element-wise behaviour
%! assert (gdot ([1 2 3], [4 5 6], 1), [4 10 18]);
%! assert (gdot ([1 2 3], [4 5 6], 2), 32);
%! assert (gdot ([1 2; 3 4], [5 6; 7 8], 3), [5 12; 21 32]);
%!test
%! ## integers: exact where dot saturates
%! assert (gdot (int8 ([100 100]), int8 ([100 1])), 10100);
%! assert (gdot (uint16 ([65535 1]), uint16 ([65535 1])), 65535^2 + 1);
%! assert (class (gdot (int32 (1), int32 (2))), "double");
%! assert (class (gdot (int32 (1), single (2))), class (dot (int32 (1), single (2))));
%! assert (class (gdot (single ([1 2]), int8 ([1 2]))), "double");
%!test
%! ## sparse: dot's values, full result
%! x = sprandn (50, 4, 0.3);  y = sprandn (50, 4, 0.3);
%! assert (gdot (x, y), full (dot (x, y)), 1e-12);
%! assert (issparse (gdot (x, y)), false);
%!test
%! ## complex conjugates the first argument; real/complex mixes
%! assert (gdot ([1i 2], [1 1]), 2 - 1i);
%! assert (gdot ([1 1], [1i 2]), 2 + 1i);
%! assert (gdot (single ([1i; 2]), [3; 4i]), single (conj (1i) * 3 + 2 * 4i));
%!test
%! ## NaN and Inf propagate as IEEE arithmetic says, in every mode
%! for acc = {"native", "double", "compensated"}
%!   assert (gdot ([1 Inf], [1 1], "accum", acc{1}, "device", "cpu"), Inf);
%!   assert (gdot ([1 Inf], [1 -1], "accum", acc{1}, "device", "cpu"), -Inf);
%!   assert (isnan (gdot ([Inf -Inf], [1 1], "accum", acc{1}, "device", "cpu")));
%!   assert (isnan (gdot ([NaN 1], [1 1], "accum", acc{1}, "device", "cpu")));
%!   assert (isnan (gdot ([0 1], [Inf 1], "accum", acc{1}, "device", "cpu")));
%!   assert (gdot (single ([1e30 1e30]), single ([1e30 1e30]), "accum", acc{1}, "device", "cpu"),
%!           single (Inf));
%!   ## a real Inf against a complex value: no NaN from implicit zero imaginary parts
%!   assert (gdot (Inf, 1 + 1i, "accum", acc{1}, "device", "cpu"), complex (Inf, Inf));
%! endfor
%!test
%! ## compensated is exact where plain summation loses everything
%! x = [1e20 1 -1e20];  y = [1 1 1];
%! assert (gdot (x, y, "accum", "compensated", "device", "cpu"), 1);
%! n = 2^16;  v = randn (n, 1);  v = [v; -v; 1] * 2^40;
%! assert (gdot (v, ones (2*n+1, 1), "accum", "compensated", "device", "cpu"), 2^40);
%! ## single data, double accumulation: 2^30 + 1 is exact in double
%! xs = single ([2^30 1 -2^30]);
%! assert (gdot (xs, single ([1 1 1]), "accum", "double", "device", "cpu"), single (1));
%! ## products whose rounding errors matter: (1+2^-30)^2 - 1 - 2^-29 = 2^-60
%! a = 1 + 2^-30;
%! assert (gdot ([a -1 -2^-29], [a 1 1], "accum", "compensated", "device", "cpu"), 2^-60);
%!test
%! ## 2^25 single ones: exact with double accumulation (single dot stops at 2^24)
%! o = ones (2^25, 1, "single");
%! assert (gdot (o, o, "device", "cpu"), single (2^25));
%! assert (gdot (o, o, "accum", "compensated", "device", "cpu"), single (2^25));
%!test
%! ## determinism: bitwise identical over repeated calls
%! x = randn (2^20 + 7, 1);  y = randn (2^20 + 7, 1);
%! for acc = {"native", "double", "compensated"}
%!   r = gdot (single (x), single (y), "accum", acc{1}, "device", "cpu");
%!   for k = 1:5
%!     assert (typecast (gdot (single (x), single (y), "accum", acc{1}, "device", "cpu"),
%!                       "uint32"), typecast (r, "uint32"));
%!   endfor
%! endfor
%!test
%! ## CPU engine: a run is summed in fixed chunks in one order, whether its chunks are
%! ## split over threads (one or a few runs) or a thread takes the whole run (many runs),
%! ## and whatever the thread count: the same bits for a column alone, among 3 or 40
%! ## columns, and in a child with OMP_NUM_THREADS=1
%! n = 8 * 4096 + 17;  X = single (randn (n, 40));  Y = single (randn (n, 40));
%! for acc = {"native", "double"}
%!   r40 = gdot (X, Y, "accum", acc{1}, "device", "cpu");
%!   r3 = gdot (X(:, 1:3), Y(:, 1:3), "accum", acc{1}, "device", "cpu");
%!   assert (typecast (r3, "uint32"), typecast (r40(1:3), "uint32"));
%!   for j = [1 2 40]
%!     r1 = gdot (X(:, j), Y(:, j), "accum", acc{1}, "device", "cpu");
%!     assert (typecast (r1, "uint32"), typecast (r40(j), "uint32"));
%!   endfor
%! endfor
%! x = randn (2^16 + 3, 1);  y = randn (2^16 + 3, 1);
%! save_fn = [tempname() ".bin"];
%! fid = fopen (save_fn, "w");  fwrite (fid, [x; y], "double");  fclose (fid);
%! unwind_protect
%!   code = sprintf (["fid = fopen ('%s'); v = fread (fid, Inf, 'double'); fclose (fid);\n" ...
%!                    "m = numel (v) / 2; x = v(1:m); y = v(m+1:end);\n" ...
%!                    "printf ('%%s %%s\\n', num2hex (gdot (x, y, 'device', 'cpu')), " ...
%!                    "num2hex (double (gdot (single (x), single (y), 'device', 'cpu'))));\n"], save_fn);
%!   [st, out] = child_octave (code, "OMP_NUM_THREADS=1 ");
%!   assert (st, 0, out);
%!   here = sprintf ("%s %s", num2hex (gdot (x, y, "device", "cpu")),
%!                   num2hex (double (gdot (single (x), single (y), "device", "cpu"))));
%!   assert (strtrim (out), here);
%! unwind_protect_cleanup
%!   unlink (save_fn);
%! end_unwind_protect
%!test
%! ## CPU engine's thread pool: calls of every way of splitting work, back to back and
%! ## interleaved (a thread still finishing or waking from one call must not take part in
%! ## the next one wrongly), give the bits each gave alone: long runs in chunks (2^15 and
%! ## 3 x 2^17 + 5), many short runs in tasks, gnorm/gcosine chunks and whole outputs
%! x = randn (3 * 2^17 + 5, 1);  y = randn (3 * 2^17 + 5, 1);
%! X = randn (700, 300);  Y = randn (700, 300);
%! calls = {@() gdot (x, y, "device", "cpu"), ...
%!          @() gdot (single (x(1:2^15)), single (y(1:2^15)), "device", "cpu"), ...
%!          @() gdot (X, Y, "device", "cpu"), ...
%!          @() gdot (x(1:2^16), y(1:2^16), "accum", "compensated", "device", "cpu"), ...
%!          @() gnorm (x, "device", "cpu"), ...
%!          @() gcosine (X, Y, "device", "cpu"), ...
%!          @() gnorm (X, 1, "device", "cpu")};
%! ref = cellfun (@(f) f (), calls, "uniformoutput", false);
%! order = [repmat(1:numel (calls), 1, 20), randi(numel (calls), 1, 300)];
%! for k = order
%!   v = calls{k} ();
%!   assert (size (v), size (ref{k}));
%!   assert (typecast (v(:), "uint32"), typecast (ref{k}(:), "uint32"));
%! endfor
%! ## against BLAS within a bound on the magnitudes (a relative one fails where the random
%! ## dot product cancels: -0.0136 from terms of 4e5 magnitude, 8e-11 relative)
%! assert (abs (ref{1} - x' * y) <= 1e-13 * (abs (x)' * abs (y)));
%! assert (all (abs (ref{3} - sum (X .* Y)) <= 1e-13 * sum (abs (X .* Y))));
%!test
%! ## the pool's threads are stopped and joined before the MEX's code goes (its destructor,
%! ## at an unload or at exit): exits cleanly right after threaded calls, while they spin,
%! ## with clear all between calls
%! code = ["x = randn (2^20, 1); a = gdot (x, x, 'device', 'cpu'); clear all;\n" ...
%!         "x = randn (2^20, 1); a = gdot (x, x, 'device', 'cpu'); b = gnorm (x, 'device', 'cpu');\n" ...
%!         "clear all; x = randn (2^18, 1); assert (gdot (x, x, 'device', 'cpu'), x' * x, -1e-12);\n" ...
%!         "disp ('pool-ok');"];
%! [st, out] = child_octave (code);
%! assert (st, 0, out);
%! assert (strtrim (out), "pool-ok");
%!test
%! ## the default device gives the same values as the CPU engine on small inputs
%! x = randn (100, 3);
%! assert (gdot (x, x), gdot (x, x, "device", "cpu"));

## ---- GPU-only paths ----
%!testif ; gpudot_gpu_available ()
%! ## 2^25 single ones on the GPU, every mode that accumulates in double
%! o = ones (2^25, 1, "single");
%! assert (gdot (o, o, "device", "gpu"), single (2^25));
%! assert (gdot (o, o, "accum", "compensated", "device", "gpu"), single (2^25));
%!testif ; gpudot_gpu_available ()
%! ## NaN/Inf and compensated exactness on the GPU
%! for acc = {"native", "double", "compensated"}
%!   assert (gdot ([1 Inf], [1 1], "accum", acc{1}, "device", "gpu"), Inf);
%!   assert (isnan (gdot ([Inf -Inf], [1 1], "accum", acc{1}, "device", "gpu")));
%!   assert (isnan (gdot ([NaN 1], [1 1], "accum", acc{1}, "device", "gpu")));
%!   assert (gdot (Inf, 1 + 1i, "accum", acc{1}, "device", "gpu"), complex (Inf, Inf));
%! endfor
%! x = [1e20 1 -1e20];
%! assert (gdot (x, [1 1 1], "accum", "compensated", "device", "gpu"), 1);
%! a = 1 + 2^-30;
%! assert (gdot ([a -1 -2^-29], [a 1 1], "accum", "compensated", "device", "gpu"), 2^-60);
%! ## a long ill-conditioned sum split over many blocks
%! n = 2^22;  v = randn (n, 1);  v(end+1:2*n) = -v;  v(end+1) = 1;  w = ones (2*n+1, 1);
%! assert (gdot (v .* 2^40, w, "accum", "compensated", "device", "gpu"), 2^40);
%!testif ; gpudot_gpu_available ()
%! ## determinism on the GPU: split kernels, warp kernels, row kernels
%! X = {randn(2^22+5, 1), randn(2^20, 8), randn(768, 3000), randn(3, 2^20)};
%! dims = {1, 1, 1, 2};
%! for i = 1:numel (X)
%!   for acc = {"native", "double", "compensated"}
%!     x = single (X{i});
%!     r = gdot (x, x + 1, dims{i}, "accum", acc{1}, "device", "gpu");
%!     for k = 1:5
%!       assert (isequal (typecast (gdot (x, x + 1, dims{i}, "accum", acc{1}, "device", "gpu"),
%!                                  "uint32"), typecast (r, "uint32")));
%!     endfor
%!   endfor
%! endfor
%!testif ; gpudot_gpu_available ()
%! ## host data through the staging ring: slot caps force column chunks and k-slabs with
%! ## carries; piece sizes that are no multiple of 16 bytes make pieces straddle the x/y
%! ## boundary of a chunk and end mid-element (piece 0: the default, the first chunk's
%! ## pieces doubling from 256 KiB to 4 MiB; 1 MiB + 5: doubling from 256 KiB to it; below
%! ## 256 KiB: all pieces that size) and every way of packing (plain stores, streaming
%! ## stores, stores + cache-line demotion); every accumulate mode, complex, gnorm
%! ## and gcosine, against the CPU engine; settings with one slot cap (so the same chunks)
%! ## agree bitwise
%! unwind_protect
%!   __gpudot__ ("release");
%!   X = {randn(2^20+3, 1), randn(2^16, 9), randn(7, 2^16), complex(randn(2^18, 3), 1)};
%!   dims = {1, 1, 2, 1};
%!   accs = {"native", "double", "compensated"};
%!   ref = cell (size (X));  refs = ref;
%!   for i = 1:numel (X)
%!     ref{i} = gdot (X{i}, X{i} + 1, dims{i}, "accum", "compensated", "device", "cpu");
%!     refs{i} = gdot (single (X{i}), single (X{i} + 1), dims{i}, "accum", "compensated", "device", "cpu");
%!   endfor
%!   refn = gnorm (X{1}, "accum", "compensated", "device", "cpu");
%!   refc = gcosine (X{2}, X{2} + 1, "accum", "compensated", "device", "cpu");
%!   ## (the default slots depend on the way: no cap, no bitwise claim)
%!   settings = {{0, 0, "auto"}, {0, 0, "plain"}, {0, 2^20 + 5, "stream"}, {0, 0, "demote"}, ...
%!               {3 * 2^20, 0, "plain"}, {3 * 2^20, 40001, "stream"}, ...
%!               {3 * 2^20, 2^20 + 5, "demote"}, {3 * 2^20, 0, "auto"}, ...
%!               {256 * 1024, 0, "auto"}, {256 * 1024, 40001, "demote"}, ...
%!               {256 * 1024, 65536, "stream"}, {300000, 4099, "plain"}};
%!   same_as_last = [false, false, false, false, false, true, true, true, false, true, true, false];
%!   first = {};
%!   for j = 1:numel (settings)
%!     __gpudot__ ("staging_cap", settings{j}{:});
%!     got = cell (numel (X), numel (accs));
%!     for i = 1:numel (X)
%!       for a = 1:numel (accs)
%!         got{i, a} = gdot (X{i}, X{i} + 1, dims{i}, "accum", accs{a}, "device", "gpu");
%!         assert (got{i, a}, ref{i}, -1e-12);
%!         gs = gdot (single (X{i}), single (X{i} + 1), dims{i}, "accum", accs{a}, "device", "gpu");
%!         tol = ifelse (a == 1, 1e-4, 1e-6);
%!         assert (double (gs), double (refs{i}), tol * max (abs (double (refs{i}(:)))));
%!       endfor
%!     endfor
%!     assert (gnorm (X{1}, "device", "gpu"), refn, -1e-13);
%!     assert (gcosine (X{2}, X{2} + 1, "device", "gpu"), refc, -1e-13);
%!     if (same_as_last(j))
%!       for k = 1:numel (got)
%!         assert (isequal (typecast (got{k}(:), "uint8"), typecast (first{k}(:), "uint8")));
%!       endfor
%!     endif
%!     first = got;
%!   endfor
%! unwind_protect_cleanup
%!   __gpudot__ ("staging_cap", 0);
%!   __gpudot__ ("release");
%! end_unwind_protect
%!testif ; gpudot_gpu_available ()
%! ## small calls on host data go direct (operands of <= 256 KiB packed into pinned memory
%! ## and read there by one kernel, results through mapped memory): the same bits as the
%! ## same call through the staging ring (a staging cap keeps calls in the ring), every
%! ## kernel kind (one warp, split runs, rows, warp columns), broadcasting, complex, the
%! ## largest direct size and the first beyond it
%! unwind_protect
%!   calls = {{@gdot, randn(1000, 1), randn(1000, 1)}, ...
%!            {@gdot, single(randn(2^15, 1)), single(randn(2^15, 1))}, ...
%!            {@gdot, randn(2^14, 1), randn(2^14, 1)}, ...
%!            {@gdot, randn(2^14 + 1, 1), randn(2^14 + 1, 1)}, ...
%!            {@gnorm, randn(2^15, 1)}, {@gnorm, randn(2^15 + 1, 1)}, ...
%!            {@gdot, randn(300, 40), randn(300, 40), 2}, ...
%!            {@gdot, randn(9, 2000), randn(9, 2000)}, ...
%!            {@gdot, randn(5000, 3), randn(5000, 1)}, ...
%!            {@gdot, complex(randn(3000, 2), randn(3000, 2)), single(randn(3000, 2)), "accum", "compensated"}, ...
%!            {@gnorm, randn(20000, 1)}, {@gnorm, single(randn(700, 30)), 1}, ...
%!            {@gnorm, randn(4096, 1), Inf}, {@gnorm, randn(4096, 1), 3}, ...
%!            {@gnorm, [1e300; 1e300; 3]}, ...
%!            {@gcosine, randn(10000, 1), randn(10000, 1)}, ...
%!            {@gcosine, randn(64, 100), randn(64, 1)}, ...
%!            {@gcosine, single(randn(2^14, 1)), single(randn(2^14, 1)), "accum", "compensated"}};
%!   for c = 1:numel (calls)
%!     f = calls{c}{1};  args = calls{c}(2:end);
%!     __gpudot__ ("staging_cap", 0);
%!     direct = f (args{:}, "device", "gpu");
%!     __gpudot__ ("staging_cap", 2^30);
%!     ring = f (args{:}, "device", "gpu");
%!     cpu = f (args{:}, "device", "cpu");
%!     assert (isequal (typecast ([real(direct(:)); imag(direct(:))], "uint8"), ...
%!                      typecast ([real(ring(:)); imag(ring(:))], "uint8")), sprintf ("call %d", c));
%!     assert (size (direct), size (cpu));
%!     assert (class (direct), class (cpu));
%!     assert (double (direct), double (cpu), -1e-5);
%!   endfor
%! unwind_protect_cleanup
%!   __gpudot__ ("staging_cap", 0);
%! end_unwind_protect
%!testif ; gpudot_gpu_available ()
%! ## tile order (runs of >= 1 GiB per operand; here from 64 KiB, with launches of at most
%! ## 8 blocks so that small runs hold whole windows: 2^19 single or 2^14 double elements
%! ## for dot): whole windows, then the rest in grid-stride order, for resident and host
%! ## data, single and double, real and complex, dot, 2-norm and cosine, with partial
%! ## windows and tails; against the CPU engine and the grid-stride order, bitwise repeatable
%! unwind_protect
%!   __gpudot__ ("tile_from", 65536, 8);
%!   for n = [2^20 + 3, 3 * 2^19 + 17, 2^21 + 4097]
%!     for cls = {"single", "double"}
%!       x = cast (randn (n, 1), cls{1});  y = cast (randn (n, 1), cls{1});
%!       z = complex (x, y);  w = complex (y, x + 1);
%!       gx = garray (x);  gy = garray (y);  gz = garray (z);  gw = garray (w);
%!       ref = gdot (double (x), double (y), "accum", "compensated", "device", "cpu");
%!       refz = gdot (double (z), double (w), "accum", "compensated", "device", "cpu");
%!       refn = gnorm (double (x), "accum", "compensated", "device", "cpu");
%!       refc = gcosine (double (x), double (y), "accum", "compensated", "device", "cpu");
%!       tol = ifelse (strcmp (cls{1}, "single"), 1e-6, 1e-12);
%!       scale = norm (double (x)) * norm (double (y));
%!       for acc = {"double", "compensated"}
%!         t = gdot (gx, gy, "accum", acc{1});
%!         assert (abs (double (t) - ref) <= tol * scale);
%!         assert (isequal (typecast (gdot (gx, gy, "accum", acc{1}), "uint8"), typecast (t, "uint8")));
%!         assert (abs (double (gdot (x, y, "accum", acc{1}, "device", "gpu")) - ref) <= tol * scale);
%!         assert (abs (double (gdot (gz, gw, "accum", acc{1})) - refz) <= tol * 4 * scale);
%!         assert (double (gnorm (gx, "accum", acc{1})), refn, -tol);
%!         assert (double (gcosine (gx, gy, "accum", acc{1})), refc, tol);
%!       endfor
%!       __gpudot__ ("tile_from", 0);    # the grid-stride order on the same data
%!       assert (abs (double (gdot (gx, gy)) - ref) <= tol * scale);
%!       __gpudot__ ("tile_from", 65536, 8);
%!       clear gx gy gz gw
%!     endfor
%!   endfor
%!   ## 3 long runs: the blocks of each output stay within their own run
%!   X = randn (2^20 + 5, 3);  Y = randn (2^20 + 5, 3);
%!   ## (an error bound from the operands' norms: a relative one fails where a sum cancels)
%!   ref3 = gdot (X, Y, "accum", "compensated", "device", "cpu");
%!   assert (all (abs (gdot (garray (X), garray (Y)) - ref3) <= 1e-12 * vecnorm (X) .* vecnorm (Y)));
%! unwind_protect_cleanup
%!   __gpudot__ ("tile_from", 0);
%! end_unwind_protect
%!testif ; gpudot_gpu_available ()
%! ## warp columns (runs shorter than 4096) finishing 1, 2, 4 ... 32 rounds of outputs at
%! ## once: the same bits as one round, for dots, norms and cosines, real and complex, each
%! ## mode, a broadcast query, and column counts that leave rounds part full
%! unwind_protect
%!   for cls = {"single", "double"}
%!     for d = [1 7 64 768]
%!       n = 2003;
%!       X = cast (randn (d, n), cls{1});  Y = cast (randn (d, n), cls{1});
%!       X(:, 5) = 0;  Y(end, 9) = Inf;
%!       Z = complex (X, Y);  q = Y(:, 1);
%!       gX = garray (X);  gY = garray (Y);  gZ = garray (Z);
%!       for acc = {"native", "double", "compensated"}
%!         o = {"accum", acc{1}};
%!         calls = {@() gdot (gX, gY, o{:}), @() gdot (gZ, gX, o{:}), @() gnorm (gX, o{:}), ...
%!                  @() gnorm (gZ, 1, o{:}), @() gnorm (gX, Inf, o{:}), ...
%!                  @() gcosine (gX, gY, o{:}), @() gcosine (gZ, gY, o{:}), ...
%!                  @() gcosine (q, gX, o{:}), @() gdot (q, gX, o{:})};
%!         for c = 1:numel (calls)
%!           __gpudot__ ("warp_batch", 1);
%!           want = calls{c} ();
%!           for b = [2 4 32 0]
%!             __gpudot__ ("warp_batch", b);
%!             assert (isequaln (calls{c} (), want), "%s d = %d %s call %d batch %d", cls{1}, d, acc{1}, c, b);
%!           endfor
%!         endfor
%!       endfor
%!     endfor
%!   endfor
%! unwind_protect_cleanup
%!   __gpudot__ ("warp_batch", 0);
%! end_unwind_protect
%!testif ; gpudot_gpu_available ()
%! ## warp columns through shared memory (runs adjacent, aligned, whole 16-byte vectors;
%! ## sm_80 and later): the same bits as read from memory, for dots, norms and cosines
%! ## (whose batches of outputs carry over tiles), real and complex, each mode, runs of 4
%! ## to 1024 elements, tiles left part full, and host operands (uploaded); counted, so
%! ## that a change of plan cannot skip the path
%! ran0 = __gpudot__ ("staged", 1);
%! if (ran0 < 0)
%!   return;   # (a device before sm_80: columns_warp alone)
%! endif
%! unwind_protect
%!   ## empty runs (their plan divided by a run's bytes: a host trap that never returned)
%!   for cls = {"single", "double"}
%!     E = zeros (0, 5e5, cls{1});
%!     assert (gdot (E, E, "device", "gpu"), zeros (1, 5e5, cls{1}));
%!     assert (gnorm (garray (E)), zeros (1, 5e5, cls{1}));
%!   endfor
%!   for cls = {"single", "double"}
%!     for d = [4 8 64 96 256 1024]
%!       n = max (4099, ceil (2^21 / (d * 8)));
%!       X = cast (randn (d, n), cls{1});  Y = cast (randn (d, n), cls{1});
%!       X(:, 5) = 0;  Y(end, 9) = Inf;  X(2, 11) = NaN;
%!       Z = complex (X, Y);
%!       gX = garray (X);  gY = garray (Y);  gZ = garray (Z);
%!       for acc = {"native", "double", "compensated"}
%!         o = {"accum", acc{1}};
%!         calls = {@() gdot (gX, gY, o{:}), @() gdot (gZ, gZ, o{:}), @() gnorm (gX, o{:}), ...
%!                  @() gnorm (gZ, 1, o{:}), @() gnorm (gX, Inf, o{:}), ...
%!                  @() gcosine (gX, gY, o{:}), @() gcosine (gZ, gZ, o{:}), ...
%!                  @() gdot (X, Y, o{:}, "device", "gpu"), ...
%!                  @() gcosine (X, Y, o{:}, "device", "gpu")};
%!         ## bytes of an output's runs (both operands): staged up to 4 KiB, 8 runs a tile
%!         ## (host operands: as the staging ring's slots allow)
%!         run = d * sizeof (X(1)) * [2 4 1 2 1 2 4 NaN NaN];
%!         for c = 1:numel (calls)
%!           __gpudot__ ("staged", 0);
%!           want = calls{c} ();
%!           before = __gpudot__ ("staged", 1);
%!           got = calls{c} ();
%!           staged = __gpudot__ ("staged", 1) > before;
%!           assert (isnan (run(c)) || staged == (run(c) <= 4096), "%s d = %d %s call %d: staged %d", cls{1}, d, acc{1}, c, staged);
%!           assert (isequaln (got, want), "%s d = %d %s call %d", cls{1}, d, acc{1}, c);
%!         endfor
%!       endfor
%!     endfor
%!   endfor
%! unwind_protect_cleanup
%!   __gpudot__ ("staged", 1);
%! end_unwind_protect
%!testif ; gpudot_gpu_available ()
%! ## split columns with one-field states (a real dot in "native" or "double", the fast
%! ## norms): each block's sum travels in a slot that the value itself marks as full, and
%! ## the finishing block empties the slots for the next launch.  The same bits whatever
%! ## ran before (several-field states, several outputs, other splits), and a NaN whose
%! ## bits are the empty mark (all ones) in the data neither stalls the finishing block
%! ## nor goes missing
%! x = randn (2^20 + 3, 1);  y = randn (2^20 + 3, 1);
%! gx = garray (x);  gy = garray (y);  sx = garray (single (x));  sy = garray (single (y));
%! r = gdot (gx, gy);  rn = gnorm (gx);  r1 = gnorm (gx, 1);
%! rs = gdot (sx, sy, "accum", "native");  rsd = gdot (sx, sy);
%! X = garray (randn (2^16, 5));  u = garray (randn (2^14, 1));
%! for k = 1:3
%!   gdot (X, X);  gnorm (X);  gcosine (gx, gy);  gdot (gx, gy, "accum", "compensated");
%!   gdot (u, u);  gdot (complex (x, y), gy);
%!   assert (typecast (gdot (gx, gy), "uint64"), typecast (r, "uint64"));
%!   assert (typecast (gnorm (gx), "uint64"), typecast (rn, "uint64"));
%!   assert (typecast (gnorm (gx, 1), "uint64"), typecast (r1, "uint64"));
%!   assert (typecast (gdot (sx, sy, "accum", "native"), "uint32"), typecast (rs, "uint32"));
%!   assert (typecast (gdot (sx, sy), "uint32"), typecast (rsd, "uint32"));
%! endfor
%! ref = gdot (x, y, "accum", "compensated", "device", "cpu");
%! assert (abs (r - ref) <= 1e-12 * norm (x) * norm (y));
%! assert (rn, norm (x), -1e-12);
%! assert (r1, norm (x, 1), -1e-12);
%! ref3 = gdot (gather (X), gather (X), "accum", "compensated", "device", "cpu");
%! assert (gdot (X, X), ref3, -1e-12);
%! for cls = {"double", "single"}
%!   z = cast (x, cls{1});
%!   z(12345) = typecast (intmax (ifelse (strcmp (cls{1}, "double"), "uint64", "uint32")), cls{1});
%!   gz = garray (z);
%!   for acc = {"native", "double"}
%!     assert (isnan (gdot (gz, garray (cast (y, cls{1})), "accum", acc{1})));
%!     assert (isnan (gnorm (gz, 1, "accum", acc{1})));
%!     assert (isnan (gnorm (gz, "accum", acc{1})));
%!   endfor
%! endfor
%!testif ; gpudot_gpu_available ()
%! ## small results come back through mapped host memory, each word its own flag: the host
%! ## marks the words empty (a NaN pattern), the kernel's store replaces the mark.  A result
%! ## whose bits are the mark (an Inf-norm passes a NaN element through) is stored as
%! ## another NaN: the call neither waits forever nor fails; and every output of a batched
%! ## call arrives, up to the 64 KiB of the area and just beyond it (a device buffer then)
%! for cls = {"double", "single"}
%!   if (strcmp (cls{1}, "double"))
%!     mark = typecast (uint64 (0x7ff4dead0000beef), "double");  per = 8192;
%!   else
%!     mark = typecast (uint32 (0x7fa0beef), "single");  per = 16384;
%!   endif
%!   z = cast (randn (1000, 1), cls{1});  z(77) = mark;
%!   r = gnorm (garray (z), Inf);
%!   assert (isnan (r) && isa (r, cls{1}));
%!   Z = cast (randn (300, 6), cls{1});  Z(5, [2 5]) = mark;
%!   R = gnorm (garray (Z), Inf);
%!   assert (isnan (R([2 5])));
%!   assert (R([1 3 4 6]), max (abs (Z(:, [1 3 4 6]))));
%!   for m = [per - 1, per, per + 1]
%!     A = cast (randn (4, m), cls{1});  B = cast (randn (4, m), cls{1});
%!     got = gdot (garray (A), garray (B));
%!     want = gdot (A, B, "accum", "compensated", "device", "cpu");
%!     assert (size (got), [1 m]);
%!     assert (all (abs (got - want) <= 4 * eps (cls{1}) * sum (abs (A .* B))));
%!     gotc = gcosine (garray (complex (A, B)), garray (B));   # two words an output
%!     wantc = gcosine (complex (A, B), B, "accum", "compensated", "device", "cpu");
%!     assert (abs (gotc - wantc) <= 8 * eps (cls{1}));
%!   endfor
%! endfor
%! __gpudot__ ("__ping__");   # the benchmark's floor: one word, the same wait
%!testif ; gpudot_gpu_available ()
%! ## out of memory: a slice that cannot fit raises gpudot:outOfMemory, the next call works
%! unwind_protect
%!   __gpudot__ ("release");
%!   __gpudot__ ("staging_cap", 1024);
%!   try
%!     gdot (randn (4096, 4), randn (4096, 4), 2, "device", "gpu");
%!     error ("expected gpudot:outOfMemory");
%!   catch err
%!     assert (err.identifier, "gpudot:outOfMemory");
%!   end_try_catch
%! unwind_protect_cleanup
%!   __gpudot__ ("staging_cap", 0);
%! end_unwind_protect
%! assert (gdot ([1 2 3], [4 5 6], "device", "gpu"), 32);
%!testif ; gpudot_gpu_available ()
%! ## persistent buffers: no growth for repeated calls; held memory is locked and released
%! x = randn (2^20, 1);
%! gdot (x, x, "device", "gpu");
%! s1 = gpudot_info ().staging_bytes;
%! for k = 1:20
%!   gdot (x, x, "device", "gpu");
%! endfor
%! assert (gpudot_info ().staging_bytes, s1);
%! assert (s1 > 0);
%! assert (mislocked ("__gpudot__"));    # the lock is __gpudot__'s, whichever entry ran
%! __gpudot__ ("release");
%! assert (gpudot_info ().staging_bytes, 0);
%! assert (mislocked ("__gpudot__"), gpudot_info ().garrays > 0);
%! assert (gdot (x, x, "device", "gpu"), x' * x, -1e-12);
%!testif ; gpudot_gpu_available ()
%! ## 64-bit indexing: one vector of 2^31 + 5 elements (8 GiB single), host and resident
%! n = 2^31 + 5;
%! x = ones (n, 1, "single");
%! assert (gdot (x, x, "device", "gpu"), single (n));
%! assert (gnorm (x, 1, "device", "gpu"), single (n));
%! g = garray (x);
%! clear x
%! assert (gdot (g, g), single (n));
%! clear g
%! __gpudot__ ("release");
%!testif ; gpudot_gpu_available ()
%! ## gpudot_info on a GPU machine
%! s = gpudot_info ();
%! assert (s.backend, "cuda");
%! assert (s.memory_total > 0 && s.memory_free > 0);
%! assert (! isempty (s.device_name) && ! isempty (s.compute_capability));
%! assert (! isempty (s.driver_version) && ! isempty (s.runtime_version));

## ---- errors ----
%!error <Invalid call> gdot ()
%!error <Invalid call> gdot (1)
%!error id=gpudot:badType gdot (true, 1)
%!error id=gpudot:badType gdot (1, "a")
%!error id=gpudot:badType gdot ({1}, 1)
%!error id=gpudot:badType gdot (struct ("a", 1), 1)
%!error id=gpudot:badType gdot (@sin, 1)
%!error id=gpudot:badType gdot (containers.Map (), 1)
%!error <gdot: X must be a numeric array> gdot (true, 1)
%!error <gdot: Y must be a numeric array> gdot (1, "a")
%!error id=gpudot:sizeMismatch gdot ([1 2 3], [1 2])
%!error id=gpudot:sizeMismatch gdot (ones (2, 3), ones (3, 2))
%!error id=gpudot:sizeMismatch gdot (ones (2, 3), ones (2, 4), 1)
%!error <gdot: sizes of X and Y> gdot (ones (2, 3), ones (3, 2))
%!error id=gpudot:badDim gdot (1, 1, 0)
%!error id=gpudot:badDim gdot (1, 1, -1)
%!error id=gpudot:badDim gdot (1, 1, 1.5)
%!error id=gpudot:badDim gdot (1, 1, [1 2])
%!error id=gpudot:badDim gdot (1, 1, 1i)
%!error id=gpudot:badDim gdot (1, 1, Inf)
%!error id=gpudot:badDim gdot (1, 1, NaN)
%!error <gdot: DIM must be> gdot (1, 1, 0)
%!error id=gpudot:badOption gdot (1, 1, "accum")
%!error id=gpudot:badOption gdot (1, 1, "accum", "quad")
%!error id=gpudot:badOption gdot (1, 1, "accum", 2)
%!error id=gpudot:badOption gdot (1, 1, "device", "tpu")
%!error id=gpudot:badOption gdot (1, 1, "colour", "red")
%!error id=gpudot:badOption gdot (1, 1, 1, "accum")
%!error id=gpudot:badOption gdot (1, 1, 5, "native")
%!error <gdot: unknown option "colour"> gdot (1, 1, "colour", "red")
## the gateway validates again when called directly, as the .m files call it
%!error id=gpudot:badType __gpudot__ ("__entry__", "gdot", true, 1)
%!error id=gpudot:badType __gpudot__ ("__entry__", "gdot", {1}, 1)
%!error id=gpudot:sizeMismatch __gpudot__ ("__entry__", "gdot", [1 2], [1 2 3])
%!error id=gpudot:badDim __gpudot__ ("__entry__", "gdot", 1, 1, 0)
%!error id=gpudot:badDim __gpudot__ ("__entry__", "gdot", 1, 1, 2.5)
%!error id=gpudot:badOption __gpudot__ ("__entry__", "gdot", 1, 1, "accum", "quad")
%!error id=gpudot:badOption __gpudot__ ("__entry__", "gdot", 1, 1, "device", "tpu")
%!error id=gpudot:badOption __gpudot__ ("dot", 1, 1)
## the option names come from one table, case-insensitive as in the compiled entries
%!assert (__gpudot__ ("__entry__", "gdot", [1 2], [3 4], "ACCUM", "double"), 11)
%!assert (gdot ([1 2], [3 4], "Device", "cpu"), 11)
%!error id=gpudot:badOption __gpudot__ ("frobnicate")
%!error id=gpudot:badOption __gpudot__ ()
%!error <way of packing> __gpudot__ ("staging_cap", 0, 0, "fast")
%!error <way of packing> __gpudot__ ("staging_cap", 0, 0, 2)
%!error id=gpudot:badOption __gpudot__ ("staging_cap", 0, 0, "plain", 1)
%!error <runtime_launch takes one value, true or false> __gpudot__ ("runtime_launch", "on")
%!error <runtime_launch takes one value, true or false> __gpudot__ ("runtime_launch", [1 0])
%!error <runtime_launch takes one value, true or false> __gpudot__ ("runtime_launch", NaN)
%!error <runtime_launch takes one value, true or false> __gpudot__ ("runtime_launch")
%!test
%! __gpudot__ ("runtime_launch", false);   # the default way (cuLaunchKernel), as a logical
## without a GPU, "device","gpu" is an error, and the next call works
%!testif ; ! gpudot_gpu_available ()
%! try
%!   gdot ([1 2], [3 4], "device", "gpu");
%!   error ("expected gpudot:noDevice");
%! catch err
%!   assert (err.identifier, "gpudot:noDevice");
%!   assert (! isempty (strfind (err.message, "gdot:")));
%! end_try_catch
%! assert (gdot ([1 2], [3 4]), 11);
%!testif ; ! gpudot_gpu_available ()
%! ## "auto" without a GPU warns once per session (gpudot:noDevice), then stays quiet;
%! ## run in a fresh Octave, since this session has warned already
%! dirs = sprintf ("addpath ('%s', '%s', '%s');", fileparts (which ("garray")),
%!                 fileparts (which ("gdot")), fileparts (which ("__gpudot__")));
%! code = [dirs "gdot (1, 2); [~, id] = lastwarn (); disp (id); gdot (1, 2); gdot (ones (3), 1);"];
%! [st, out] = system (sprintf ('octave-cli --no-history --no-init-file --eval "%s" 2>&1', code));
%! assert (st, 0);
%! assert (numel (strfind (out, "no usable CUDA device")), 1);
%! assert (! isempty (strfind (out, "gpudot:noDevice")));

## the public names are compiled entries (gdot.oct, copied as gnorm.oct and gcosine.oct,
## each linked against __gpudot__.mex: one state), with the .m files' help
%!test
%! for f = {"gdot", "gnorm", "gcosine"}
%!   w = which (f{1});
%!   assert (regexp (w, '\.oct$', "once") > 0, w);
%!   assert (fileparts (w), fileparts (which ("__gpudot__")));
%!   [text, format] = get_help_text (f{1});     # what help shows, before makeinfo
%!   assert (format, "texinfo");
%!   assert (! isempty (strfind (text, [f{1} " (@var{x}"])), text);
%!   assert (! isempty (strfind (text, "@end deftypefn")), text);
%! endfor

## garray arguments: each entry registers, on its first call, as the built-in of its name
## for class garray (Octave caches that lookup; mex/gpudot_entry.cc, dispatch_garray), and
## stays the file on the path for which and exist; __gpudot_undispatch__ (PKG_DEL) takes it
## back, the next call registers again
%!test
%! names = {"gdot", "gnorm", "gcosine"};
%! g = garray ([3 4]);  h = garray ([4 -3]);
%! assert (gdot (g, h), 0);  assert (gnorm (g), 5);  assert (gcosine (g, g), 1, eps);
%! for f = names
%!   assert (exist (f{1}, "builtin"), 5);
%!   assert (exist (f{1}), 3);
%!   assert (regexp (which (f{1}), '\.oct$', "once") > 0);
%! endfor
%! __gpudot_undispatch__ ();
%! for f = names
%!   assert (exist (f{1}, "builtin"), 0);
%!   assert (exist (f{1}), 3);
%! endfor
%! assert (gdot ([1 2 3], [4 5 6]), 32);     # found on the path; any call registers
%! assert ([exist("gdot", "builtin"), exist("gnorm", "builtin")], [5 0]);
%! assert (gdot (g, h), 0);  assert (gnorm (g), 5);  assert (gcosine (g, h), 0);
%! for f = names
%!   assert (exist (f{1}, "builtin"), 5);
%! endfor
%! ## the same function either way: the fast path's bits, and the MEX's errors
%! fail ("gdot (g, garray ([1 2 3]))", "gdot: ");
%! assert (gdot (g, h, "accum", "compensated"), __gpudot__ ("__entry__", "gdot", g, h, "accum", "compensated"));

%!function check_entry_fast (f, varargin)
%! ## one call of the compiled entry f: answered by its fast path, with the MEX path's
%! ## value, bit for bit, class and complexity included
%! c0 = __gpudot__ ("__entry_calls__");
%! a = feval (f, varargin{:});
%! assert (__gpudot__ ("__entry_calls__"), c0 + 1);
%! b = __gpudot__ ("__entry__", f, varargin{:});
%! assert (__gpudot__ ("__entry_calls__"), c0 + 1);
%! assert (class (a), class (b));
%! assert (iscomplex (a), iscomplex (b));
%! assert (size (a), [1 1]);
%! assert (a, b);                            # exact: tolerance 0

%!test
%! ## the fast path: whole vectors of one class on the CPU engine (host data, "auto" or
%! ## "cpu"), any accumulate mode, a norm's numeric p
%! warning ("off", "gpudot:noDevice", "local");
%! gdot (1, 2);                              # the session's warning given, if any
%! randn ("seed", 11);
%! for n = [1 2 7 31 32 33 1000 4097 (2^15 + 3) (2^17 + 1)]
%!   for cls = {"single", "double"}
%!     for cx = 0:1
%!       for cy = 0:1
%!         x = cast (randn (n, 1) + cx * 1i * randn (n, 1), cls{1});
%!         y = cast (randn (1, n) + cy * 1i * randn (1, n), cls{1});
%!         check_entry_fast ("gdot", x, y);
%!         check_entry_fast ("gdot", y, x.');
%!         check_entry_fast ("gcosine", x, y);
%!       endfor
%!     endfor
%!     check_entry_fast ("gnorm", x);
%!     check_entry_fast ("gnorm", x.');
%!     for p = {1, 2, Inf, -Inf, 0, 3.5, -1, single(3)}
%!       check_entry_fast ("gnorm", x, p{1});
%!     endfor
%!     for acc = {"native", "double", "compensated"}
%!       check_entry_fast ("gdot", x, y, "accum", acc{1});
%!       check_entry_fast ("gcosine", x, y, "ACCUM", acc{1}, "device", "cpu");
%!       check_entry_fast ("gnorm", x, 1, "device", "auto", "accum", acc{1});
%!       check_entry_fast ("gnorm", x, "accum", acc{1});
%!     endfor
%!     check_entry_fast ("gdot", x, y, "accum", "native", "accum", "compensated");
%!   endfor
%! endfor
%! assert (gdot ([1i 2], [1i 2]), 5);         # conj (x) . y, narrowed to real as dot
%! assert (isreal (gdot ([1i 2], [1i 2])));

%!test
%! ## everything else goes to the MEX, with the same answers as before: matrices, a DIM,
%! ## mixed classes, ranges, integers, sparse, logical, empty, named p, "kernel", host data
%! ## to the GPU, options it does not know
%! warning ("off", "gpudot:noDevice", "local");
%! gdot (1, 2);
%! c0 = __gpudot__ ("__entry_calls__");
%! assert (gdot ([1 2; 3 4], [1 2; 3 4]), [10 20]);
%! assert (gdot ([1 2 3], [4 5 6], 2), 32);
%! assert (gdot (single ([1 2 3]), [4 5 6]), single (32));
%! assert (gdot (1:3, 4:6), 32);
%! assert (gdot (int8 ([1 2 3]), [4 5 6]), 32);
%! assert (gdot (sparse ([1 2 3]), [4 5 6]), 32);
%! assert (gdot ([], []), dot ([], []));
%! assert (gnorm ([3 4], "fro"), 5);
%! assert (gnorm ([3 4], [], 2), 5);
%! assert (gcosine ([1 0], [1 0], 2), 1);
%! assert (__gpudot__ ("__entry_calls__"), c0);
%! if (gpudot_gpu_available ())
%!   assert (gdot ([1 2 3], [4 5 6], "device", "gpu"), 32);
%!   assert (gdot ([1 2 3], [4 5 6], "kernel", "fused"), 32);
%!   assert (__gpudot__ ("__entry_calls__"), c0);
%! endif
%!assert (gdot ([1 2 3], [4 5 6], "accum", "Native"), 32)   # option values in any case, as Octave's
%!error <P must be a real scalar> gnorm ([3 4], int8 (1))
%!error <P must be a real scalar> gnorm ([3 4], NaN)
%!error <unknown option "kernel"> gnorm ([3 4], "kernel", "fused")
%!error id=gpudot:badType gdot (true (1, 3), [1 2 3])
%!error <Invalid call to gdot> gdot ([1 2 3])
%!error id=gpudot:sizeMismatch gdot ([1 2 3], [1 2])
%!error id=gpudot:badOption __gpudot__ ("__entry__", "gfoo", 1, 2)

%!testif ; gpudot_gpu_available ()
%! ## resident vectors (two garrays of one class): the fast path too, with the MEX path's bits
%! randn ("seed", 12);
%! for n = [1 33 4097 (2^16 + 1) (2^20 + 7)]
%!   for cls = {"single", "double"}
%!     for cx = 0:1
%!       x = cast (randn (n, 1) + cx * 1i * randn (n, 1), cls{1});
%!       y = cast (randn (n, 1), cls{1});
%!       g = garray (x);  h = garray (y);  hr = garray (y.');
%!       check_entry_fast ("gdot", g, h);
%!       check_entry_fast ("gdot", h, g);
%!       check_entry_fast ("gdot", g, hr);
%!       check_entry_fast ("gcosine", g, h);
%!       check_entry_fast ("gnorm", g);
%!       check_entry_fast ("gnorm", g, 3.5, "accum", "compensated");
%!       check_entry_fast ("gdot", g, h, "device", "gpu", "accum", "native");
%!       assert (gdot (g, h), gdot (x, y), 8 * n * eps (cls{1}) * gdot (abs (x), abs (y)));
%!       c0 = __gpudot__ ("__entry_calls__");
%!       gdot (g, y);                          # a host operand: the MEX uploads it
%!       gdot (g, h, "device", "cpu");          # the MEX gathers them
%!       if (n > 1)
%!         fail ("gdot (g, garray (x([1:end 1])))", "sizes of X and Y");  # the MEX says so
%!       endif
%!       assert (__gpudot__ ("__entry_calls__"), c0);
%!     endfor
%!   endfor
%! endfor
%! g = garray ([1 2 3]);  h = garray (single ([4 5 6]));
%! c0 = __gpudot__ ("__entry_calls__");
%! fail ("gdot (g, h)", "garrays of different classes");
%! M = garray (magic (3));
%! assert (gdot (M, M), sum (magic (3) .^ 2));
%! delete (g);
%! fail ("gdot (g, g)", "no longer exists|deleted");
%! assert (__gpudot__ ("__entry_calls__"), c0);
%!testif ; gpudot_gpu_available ()
%! ## one output whose run is over one warp's round of loads and at most two of a block's
%! ## (2 KiB < bytes an operand <= 32 KiB: cuda/tuning.h, kOneBlockVecs) takes one
%! ## block of the split kernel and no merge; below it one warp, above it split runs.  At
%! ## the edges, for every element type, each op and mode (norms of p = 2, 1, Inf and 3, a
%! ## run-time kind): against the CPU engine, bitwise repeatable, and the same bits whether
%! ## the kernels launch through the driver (cuLaunchKernel) or the runtime (<<<>>>)
%! unwind_protect
%!   for t = {{"single", 0, 512}, {"double", 0, 256}, {"single", 1, 256}, {"double", 1, 128}}
%!     [cls, cplx, w] = deal (t{1}{:});     # w: elements in one warp's round (2 KiB)
%!     for n = [w, w + 1, 16 * w, 16 * w + 1, 32 * w]
%!       x = cast (randn (n, 1), cls);  y = cast (randn (n, 1), cls);
%!       if (cplx)
%!         x = complex (x, cast (randn (n, 1), cls));  y = complex (y, cast (randn (n, 1), cls));
%!       endif
%!       gx = garray (x);  gy = garray (y);
%!       tol = 8 * eps (cls);
%!       for acc = {"native", "double", "compensated"}
%!         r = {gdot(gx, gy, "accum", acc{1}), gcosine(gx, gy, "accum", acc{1}), ...
%!              gnorm(gx, "accum", acc{1}), gnorm(gx, 1, "accum", acc{1}), ...
%!              gnorm(gx, Inf, "accum", acc{1}), gnorm(gx, 3, "accum", acc{1})};
%!         __gpudot__ ("runtime_launch", 1);
%!         rr = {gdot(gx, gy, "accum", acc{1}), gcosine(gx, gy, "accum", acc{1}), ...
%!               gnorm(gx, "accum", acc{1}), gnorm(gx, 1, "accum", acc{1}), ...
%!               gnorm(gx, Inf, "accum", acc{1}), gnorm(gx, 3, "accum", acc{1})};
%!         __gpudot__ ("runtime_launch", 0);
%!         again = gdot (gx, gy, "accum", acc{1});
%!         for k = 1:numel (r)
%!           assert (isa (r{k}, cls));
%!           assert (isequal (typecast (r{k}, "uint8"), typecast (rr{k}, "uint8")));
%!         endfor
%!         assert (isequal (typecast (again, "uint8"), typecast (r{1}, "uint8")));
%!         xd = double (x);  yd = double (y);
%!         ref = gdot (xd, yd, "accum", "compensated", "device", "cpu");
%!         ## single "native" accumulates in float: its bound grows with n
%!         tk = ifelse (strcmp (acc{1}, "native"), tol * sqrt (n), tol);
%!         assert (abs (double (r{1}) - ref) <= tk * sum (abs (xd .* yd)));
%!         refc = gcosine (xd, yd, "accum", "compensated", "device", "cpu");
%!         assert (abs (double (r{2}) - refc) <= 4 * tk);
%!         assert (double (r{3}), norm (xd), -tk);
%!         assert (double (r{4}), norm (xd, 1), -tk);
%!         assert (double (r{5}), norm (xd, Inf), -tol);
%!         assert (double (r{6}), norm (xd, 3), -4 * tk);
%!       endfor
%!       clear gx gy
%!     endfor
%!   endfor
%!   ## the other kernels, both ways: warp columns, rows (DIM 2), split runs, many outputs
%!   A = randn (3000, 7);  B = randn (3000, 7);  v = randn (2^18 + 3, 1);
%!   gA = garray (A);  gB = garray (B);  gv = garray (v);
%!   f = @() {gdot(gA, gB), gdot(gA, gB, 2), gnorm(gA), gcosine(gA, gB), gdot(gv, gv), ...
%!            gnorm(gv, "accum", "compensated"), gdot(A, B, "device", "gpu")};
%!   r = f ();
%!   __gpudot__ ("runtime_launch", 1);
%!   rr = f ();
%!   __gpudot__ ("runtime_launch", 0);
%!   for k = 1:numel (r)
%!     assert (isequal (typecast (r{k}(:), "uint8"), typecast (rr{k}(:), "uint8")));
%!   endfor
%!   ref = gdot (A, B, "accum", "compensated", "device", "cpu");
%!   assert (all (abs (r{1} - ref) <= 1e-12 * vecnorm (A) .* vecnorm (B)));
%! unwind_protect_cleanup
%!   __gpudot__ ("runtime_launch", 0);
%! end_unwind_protect
