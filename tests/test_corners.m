## Copyright (C) 2026 gpudot developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_corners
## Where gpudot once disagreed with Octave: each block holds gpudot to Octave's own answer
## (or to the documented rule where gpudot's differs), on the CPU engine and, where a GPU
## is usable, on the GPU too.
## @end deftypefn

function test_corners ()
  test ("test_corners");
endfunction

%!shared dev
%! warning ("off", "gpudot:noDevice");
%! dev = {"cpu"};
%! if (gpudot_gpu_available ())
%!   dev{end+1} = "gpu";
%! endif

## gnorm with large |p|: the extreme element's term is 1, not 2^-|p|
%!test
%! for d = dev
%!   assert (gnorm ([1 2], 2000, "device", d{1}), 2);
%!   assert (gnorm ([3 4], 1100, "device", d{1}), 4);
%!   assert (gnorm ([1 2], -2000, "device", d{1}), 1);
%!   assert (gnorm (single ([1 2]), 3000, "device", d{1}), single (2));
%!   assert (gnorm ([2 2], 1e6, "device", d{1}), 2 * 2^1e-6, -1e-15);
%!   assert (gnorm ([1e-300 3e-300], 1500, "device", d{1}), 3e-300, -1e-14);
%!   assert (gnorm ([1e300 2e300], -1500, "device", d{1}), 1e300, -1e-14);
%!   for p = [-3000 -1031 -3 -0.5 0.5 3 1075 1076 3000]
%!     x = [0.75 1.5 3 0.375];
%!     ## (Octave's own norm underflows to Inf at p = -3000: ref_norm scales first)
%!     assert (gnorm (x, p, "device", d{1}), ref_norm (x, p, 2), -1e-13);
%!     assert (gnorm (single (x), p, "device", d{1}, "accum", "native"), single (ref_norm (x, p, 2)), -1e-5);
%!   endfor
%! endfor

## sparse operands: 0 * Inf and 0 * NaN at the sparse operand's zeros are NaN, as in dot
%!assert (gdot (sparse ([1 0 2]), [1 Inf 1]), NaN)
%!assert (gdot ([1 NaN 1], sparse ([1 0 2])), NaN)
%!assert (gdot (sparse ([1 0 2]), sparse ([1 Inf 1])), NaN)
%!assert (gdot (sparse ([1 0 2]'), [1 Inf 1]'), NaN)
%!assert (gdot (sparse ([1 0; 0 2]), [1 Inf; 1 1]), [1 NaN])
%!test
%! ## complex: each part as the full operands give it (0 * (Inf + 1i) is NaN + 0i)
%! y = [1 complex(Inf, 1) 1];
%! for x = {[1 0 2], complex([1 0 2], [0 0 1]), [1 0 0]}
%!   assert (gdot (sparse (x{1}), y), gdot (x{1}, y));
%!   assert (gdot (y, sparse (x{1})), gdot (y, x{1}));
%! endfor
%! assert (isnan (real (gdot (sparse ([1 0 2]), y))));
%!assert (gdot (sparse ([1 0 2]), [1 1e308 1]), 3)

## mixed integer and fractional operands: the exact dot product of the values (dot first
## rounds each product to the integer class)
%!assert (gdot (int8 ([1 2]), [1.5 1]), 3.5)
%!assert (gdot ([1.5 1], int8 ([1 2])), 3.5)
%!assert (gdot (uint8 ([200 200]), [0.5 0.25]), 150)

## any, all and their class; mean and sum of empties as Octave gives them
%!test
%! g = garray ([1 2 3]);
%! assert (any (g), true);
%! assert (all (garray ([1 1 1])), true);
%! assert (all (garray ([1 0 1])), false);
%! assert (any (garray ([0 0 0])), false);
%! assert (any (garray ([0 NaN 0])), false);     # any ignores NaN
%! assert (any (garray ([1 NaN 0])), true);
%! assert (any (garray ([NaN; 0; 1]), 3), any ([NaN; 0; 1], 3));
%! assert (all (garray ([NaN 1])), true);         # all counts NaN as nonzero
%! assert (all (garray ([NaN 0]), 3), [true false]);  # (Octave 7-11: [false false])
%! M = [0 1 0; 0 0 0; 0 2 1];
%! assert (any (garray (M)), any (M));
%! assert (all (garray (M), 2), all (M, 2));
%! assert (any (garray (M), 3), any (M, 3));
%! assert (any (garray (single (M))), any (M));
%! assert (all (garray (complex ([0 1], [1 0]))), true);
%! ## a complex value half Inf, half NaN is a NaN to any (its magnitude, Inf, is not)
%! z = complex ([Inf 0 1; NaN 0 0], [NaN 0 0; -Inf 0 0]);
%! assert (any (garray (z)), [false false true]);
%! assert (any (garray (z), 2), [true; false]);
%! assert (any (garray (z), 3), logical ([0 0 1; 0 0 0]));
%! assert (any (garray (single (z))), [false false true]);
%! ## and a NaN to norm at p = Inf and -Inf (gnorm: its magnitude, Inf; vecnorm: as this
%! ## release's)
%! for c = {@double, @single}
%!   w = c{1} (complex ([1 Inf 2], [0 NaN 0]));
%!   for p = {Inf, -Inf, "inf", "-inf", 1, 2}
%!     assert (norm (garray (w), p{1}), norm (w, p{1}));
%!     assert (norm (garray (w.'), p{1}), norm (w.', p{1}));
%!   endfor
%!   assert (vecnorm (garray (w), Inf), vecnorm (w, Inf));
%!   assert (gnorm (w, Inf), c{1} (Inf));
%!   W = c{1} ([z; 1 2 3]);
%!   for o = {"rows", "columns"}
%!     assert (norm (garray (W), Inf, o{1}), norm (W, Inf, o{1}));
%!     assert (norm (garray (W), -Inf, o{1}), norm (W, -Inf, o{1}));
%!   endfor
%! endfor
%! for z = {[], zeros(0, 3), zeros(3, 0), zeros(1, 0), zeros(0, 3, 2)}
%!   x = z{1};
%!   assert (any (garray (x)), any (x));
%!   assert (all (garray (x)), all (x));
%!   assert (sum (garray (x)), sum (x));
%!   assert (sum (garray (x), 1), sum (x, 1));
%!   assert (sum (garray (x), 2), sum (x, 2));
%!   assert (mean (garray (x)), mean (x));
%! endfor
%! assert (mean (garray ([1 2; 3 5])), [2 3.5]);
%! assert (mean (garray (single ([1 2; 3 5])), 2), single ([1.5; 4]));
%! assert (class (any (garray ([1 2]))), "logical");
%!test
%! ## the mean of singles whose sum passes realmax: finite, as the mean in double (Octave
%! ## 9 and later; 7 and 8 sum in single and give -Inf); a true Inf or NaN stays
%! x = single ([-3e38; -3e38; -3e38; 1]);
%! assert (mean (garray (x)), single (-2.25e38));
%! x = single ([3e38 3e38 -Inf; 3e38 3e38 1; NaN 3e38 3e38]);
%! assert (mean (garray (x), 2), single ([-Inf; 2e38; NaN]));
%! assert (mean (garray (x)), single ([NaN 3e38 -Inf]), -2^-23);
%! c = complex (single ([3e38 3e38 1]), single ([1e-40 2 3e38]));
%! assert (mean (garray (c)), single (mean (double (c))), -2^-23);
%! assert (mean (garray ([c; c]), 2), single (mean (double ([c; c]), 2)), -2^-23);
%! assert (mean (garray (single ([3e38 3e38]))), single (3e38), -2^-23);
%! ## sums of singles in double: finite where Octave's single partial sums overflow
%! assert (sum (garray (single ([3e38 3e38 -3e38 -3e38]))), single (0));
%! assert (sum (garray (single ([3e38 3e38 -3e38; 1 2 3])), 2), single ([3e38; 6]));

## isequaln on garrays
%!assert (isequaln (garray ([NaN 1]), [NaN 1]))
%!assert (isequaln ([NaN 1], garray ([NaN 1])))
%!assert (! isequal (garray ([NaN 1]), [NaN 1]))

## norm of an N-D garray is an error, as norm's is
%!error id=gpudot:badDim norm (garray (ones (2, 2, 2)), 1)
%!error id=gpudot:badDim norm (garray (ones (2, 2, 2)))

## errors name the function the user called
%!error <^sum: DIM> sum (garray (magic (3)), 0)
%!error <^mean: DIM> mean (garray (magic (3)), 1.5)
%!error <^norm: P> norm (garray ([1 2]), "bogus")
%!error <^dot: > dot (garray ([1 2]), [1 2 3 4; 5 6 7 8])
%!error <^vecnorm: P> vecnorm (garray ([1 2]), "bogus")
%!error <^size: DIM> size (garray ([1 2]), "x")
%!error <^size: DIM> size (garray ([1 2]), 0)
%!error <mat2str .*gather> mat2str (garray ([1 2]))

## operations outside the package's scope: one gatherFirst error that says gather
%!test
%! g = garray ([3 1 2]);
%! ops = {@reshape, @permute, @sort, @isnan, @num2str, @mat2str, @prod, @cumsum, @sqrt, ...
%!        @abs, @find, @unique, @logical, @real, @squeeze, @round};
%! for i = 1:numel (ops)
%!   try
%!     ops{i} (g);
%!     error ("no error for %s", func2str (ops{i}));
%!   catch err
%!     assert (err.identifier, "gpudot:gatherFirst");
%!     assert (! isempty (strfind (err.message, "gather (g)")), err.message);
%!   end_try_catch
%! endfor

## index errors: Octave's identifiers
%!shared m
%! warning ("off", "gpudot:noDevice");
%! m = garray (magic (3));
%!error id=Octave:invalid-index m(-1)
%!error id=Octave:invalid-index m(1.5)
%!error id=Octave:invalid-index m(NaN)
%!error id=Octave:invalid-index m(0, 1)
%!error id=Octave:index-out-of-bounds m(10)
%!error id=Octave:index-out-of-bounds m(2, 4)
%!error id=Octave:index-out-of-bounds m(true (1, 10))
%!assert (numel (m), ifelse (garray.numel_counts, 9, 1))

## a garray made through a handle to its constructor, then garray as usual
%!test
%! g = garray ([1 2 3]);
%! f = @garray;
%! h = f (g);
%! assert (gather (h), [1 2 3]);
%! c = cellfun (@garray, {g}, "UniformOutput", false);
%! assert (gather (c{1}), [1 2 3]);
%! k = garray ([4 5]);
%! assert (gather (k), [4 5]);
%! assert (gather (g(2:3)), [2 3]);
%! e = garray (zeros (0, 3));
%! assert (size (e), [0 3]);
%! try
%!   k(1) = 3;
%!   error ("no error");
%! catch err
%!   assert (err.identifier, "gpudot:gatherFirst");
%! end_try_catch
%! try
%!   k.id = 3;
%!   error ("no error");
%! catch err
%!   assert (! strcmp (err.message, "no error"));
%! end_try_catch
%! assert (gather (k), [4 5]);

## a garray inside a cell or struct shows its size, class and place
%!test
%! s = evalc ("c = {garray([1 2])}");
%! assert (! isempty (strfind (s, "[1x2 double] on ")), s);
%! assert (garray (single ([1 2; 3 4])).summary(1:16), "[2x2 single] on ");

## "devices" without a GPU keeps the data on the host, as garray (x) does
%!testif ; ! gpudot_gpu_available ()
%! g = garray ([1 2], "devices", "all");
%! assert (gather (g), [1 2]);

## max and min of garrays, with indices: Octave's rules for NaN, ties, complex values,
## every dimension and empties (the device's kernels where a GPU is usable).  Complex
## values whose magnitudes tie or nearly tie (integers: 5 = |3+4i|; subnormal singles)
## order by the host library's abs and arg, which are not correctly rounded; a value half
## Inf, half NaN after a number is taken by max's scan (its abs is Inf)
%!test
%! pyth = [5, 3+4i, -5, 4-3i, 5i, -3-4i, 5];
%! cases = {[3 1 4 1 5 9 2 6], [NaN 2 NaN 2], [NaN NaN], [-0 0], magic(4), ...
%!          [1 NaN; NaN NaN; 3 -Inf], reshape(1:24, 2, 3, 4), ...
%!          [1i 1 -1 -1i], [complex(NaN, 1) 2 3i], single([2 Inf -Inf NaN]), ...
%!          zeros(0, 3), zeros(3, 0), [], randn(5000, 3), randn(3, 5000), ...
%!          randn(1, 70000), complex(randn(40, 50), randn(40, 50)), ...
%!          [complex(-1, -0) complex(-1, 0) 1], single(complex([1 2], [2 1])), ...
%!          pyth, single(pyth), [pyth; -pyth; 1i*pyth], ...
%!          complex(round(randn(64, 300) * 8), round(randn(64, 300) * 8)), ...
%!          single(complex(round(randn(300, 64) * 8), round(randn(300, 64) * 8))), ...
%!          single(complex(randn(64, 300), randn(64, 300)) * 1e-42), ...
%!          complex(randi([-2 2], 5000, 2), randi([-2 2], 5000, 2)), ...
%!          [1 complex(Inf, NaN) 2], [complex(Inf, NaN) 1 Inf], [1 complex(NaN, -Inf) -Inf], ...
%!          [complex(0, 0) complex(-0, 0) complex(0, -0) complex(-0, -0)], ...
%!          single([complex(NaN, 1) 1 complex(Inf, NaN) complex(-Inf, 0)])};
%! for c = 1:numel (cases)
%!   x = cases{c};
%!   g = garray (x);
%!   for f = {@max, @min}
%!     [m, i] = f{1} (g);
%!     [wm, wi] = f{1} (x);
%!     assert (isequaln (m, wm) && isequal (i, wi) && strcmp (class (m), class (wm)),
%!             sprintf ("%s of case %d", func2str (f{1}), c));
%!     for d = 1:ndims (x) + 1
%!       [m, i] = f{1} (g, [], d);
%!       [wm, wi] = f{1} (x, [], d);
%!       assert (isequaln (m, wm) && isequal (i, wi) && isequal (size (m), size (wm)),
%!               sprintf ("%s of case %d along %d", func2str (f{1}), c, d));
%!     endfor
%!   endfor
%! endfor
%!error id=gpudot:gatherFirst max (garray ([1 2]), 3)
%!error id=gpudot:gatherFirst min (3, garray ([1 2]))
%!error id=gpudot:badDim max (garray ([1 2]), [], 0)

## the matrix 1- and Inf-norms of a garray: NaN where any sum is (Octave 7-11 give NaN only
## where the first sum is NaN)
%!test
%! assert (norm (garray ([1 2; 3 4]), 1), 6);
%! assert (norm (garray ([1 2; 3 4]), Inf), 7);
%! assert (isnan (norm (garray ([1 NaN; 2 3]), 1)));
%! assert (isnan (norm (garray ([NaN 1; 2 3]), Inf)));
%! assert (isnan (norm (garray ([Inf 1; 2 NaN]), 1)));

## a call on host data through the GPU whose one slice passes the ring's smallest slot
## (the rows of 300 x 300 complex singles)
%!testif ; gpudot_gpu_available ()
%! x = uint64 (1:300);  y = single (complex (randn (300, 1), randn (300, 1)));
%! assert (gdot (x, y, 3, "device", "gpu"), gdot (x, y, 3, "device", "cpu"), -1e-6);
%! assert (gcosine (double (x), double (y), 3, "device", "gpu"),
%!         gcosine (double (x), double (y), 3, "device", "cpu"), -1e-12);

## a broadcast that needs a copy of a garray on the GPU: gatherFirst, which says so
%!testif ; gpudot_gpu_available ()
%! try
%!   gdot (garray (randn (3, 4)), randn (1, 1, 5));
%!   error ("no error");
%! catch err
%!   assert (err.identifier, "gpudot:gatherFirst");
%!   assert (! isempty (strfind (err.message, "gather")), err.message);
%! end_try_catch

## products that overflow and cancel: NaN on every engine, as plain arithmetic gives (the
## GPU's fused multiply-add once turned Inf + (-1e600) into Inf); and exact cancellation
%!test
%! x = [1e300 1e300 -1e300 1e300];  y = [1e300 -1e300 1e300 1e300];
%! a = 3 + 2^-30;
%! dev = {"cpu"};
%! if (gpudot_gpu_available ())
%!   dev{end+1} = "gpu";
%! endif
%! for d = dev
%!   assert (isnan (gdot (x, y, "device", d{1})));
%!   assert (isnan (gdot (garray (x), y, "device", d{1})));
%!   assert (gdot ([a a], [a -a], "device", d{1}), 0);
%!   assert (gdot (single ([a a]), single ([a -a]), "device", d{1}, "accum", "native"), single (0));
%!   z = gdot (complex ([1e300 1e300], 1), [1e300 -1e300], "device", d{1});
%!   assert (isnan (real (z)) && imag (z) == 0);
%! endfor

%!test
%! ## 64-bit integers past 2^53 enter rounded to double, as dot rounds them (documented):
%! ## in every mode, the exact one too
%! x = int64 ([2^53 + 1, 1]);  y = int64 ([1 1]);
%! for a = {"double", "native", "compensated", "exact"}
%!   assert (gdot (x, y, "accum", a{1}), dot (x, y));
%!   assert (gdot (x, y, "accum", a{1}), 2^53);
%! endfor
%! assert (gdot (uint64 (2^64 - 1), uint64 (1)), 2^64);
