## The exact core (cpu/gpudot_exact.c) against sums computed in rational arithmetic
## (tests/exact_ref.py wrote tests/exact_cases.txt): GenDot up to condition 1e300,
## cancellation across the exponent range, ties at the last bit, singles that rounding
## to double first would get wrong, subnormal and overflowing results; each case in its
## order, reversed, permuted and in chunks merged, bit for bit.  Then IEEE's cases.

%!test
%! f = fopen (fullfile (fileparts (which ("test_exact")), "exact_cases.txt"));
%! lines = {};
%! while (ischar (l = fgetl (f)))
%!   lines{end+1} = l;
%! endwhile
%! fclose (f);
%! assert (numel (lines) > 100);
%! rand ("seed", 11);
%! for c = 1:numel (lines)
%!   w = strsplit (lines{c});
%!   cls = w{1};
%!   n = str2double (w{2});
%!   v = cellfun (@(h) hex_value (h, cls), w(3:end));
%!   x = v(1:n);  y = v(n+1:2*n);  want = v(end);
%!   p = randperm (n);
%!   got = [__gpudot__("exact_dot", x, y), __gpudot__("exact_dot", x(end:-1:1), y(end:-1:1)), ...
%!          __gpudot__("exact_dot", x(p), y(p)), __gpudot__("exact_dot", x(p), y(p), 3), ...
%!          __gpudot__("exact_dot", x, y, 1), __gpudot__("exact_dot", x(p), y(p), 0, 1)];
%!   ok = isequal (typecast (got, ifelse (cls == "s", "uint32", "uint64")), ...
%!                 repmat (typecast (want, ifelse (cls == "s", "uint32", "uint64")), 1, 6));
%!   assert (ok, "case %d (%s, n = %d): %.17g, want %.17g", c, cls, n, got(1), want);
%! endfor

%!test
%! e = @(varargin) __gpudot__ ("exact_dot", varargin{:});
%! assert (e ([1e200 1e200 3], [1e200 -1e200 0.5]), 1.5);
%! assert (e ([1 2^-53], [1 1]), 1);                      # a tie: to even
%! assert (e ([1 2^-53 2^-1000], [1 1 1]), 1 + eps);      # decided far below it
%! assert (e ([realmax realmax -realmax], [1 1 1]), realmax);
%! assert (e ([realmax realmax], [1 1]), Inf);
%! assert (e (2^-1074, 0.5), 0);                          # half the least subnormal: to 0
%! assert (e (2^-1074, 0.75), 2^-1074);
%! assert (isnan (e ([Inf 1], [0 1])) && isnan (e ([Inf -Inf], [1 1])) && isnan (e (NaN, 1)));
%! assert (e ([Inf 1e308], [1 1e308]), Inf);
%! assert (e ([-Inf 1], [1 1]), -Inf);
%! assert (signbit (e ([-0 0], [1 -1])) && ! signbit (e ([1 -1], [1 1])));
%! assert (! signbit (e ([], [])) && e ([], []) == 0);
%! assert (e (single ([1 2^-24 2^-60]), single ([1 1 1])), single (1 + 2^-23));
%! assert (e (single (1e30), single (1e30)), single (Inf));
%!test
%! ## the lanes' windows (AVX-512 CPUs) at their lowest octave: a product's last bit there
%! ## (2^-75 below), and the rounding errors of products of 53-bit significands, are kept
%! e = @(varargin) __gpudot__ ("exact_dot", varargin{:});
%! x = [1.5 * ones(1, 8), (2^-23 + 2^-75) * ones(1, 8), -(2^-23 - 2^-53) * ones(1, 8)];
%! assert (e (x, ones (1, 24)), 12 + eps (12));
%! rand ("state", 13);  randn ("state", 13);
%! for t = 1:200                                      # exact sums of 0, in any order
%!   small = (1 + rand (1, 56)) .* 2^-23 .* sign (randn (1, 56));
%!   x = [1.5 * ones(1, 8), small];
%!   y = [ones(1, 8), 1 + (mod (t, 2) == 0) * rand(1, 56)];
%!   p = randperm (64);
%!   assert (e ([x, -x(p)], [y, y(p)]) == 0, "trial %d", t);
%!   xs = single (x);  ys = single (y);
%!   assert (e ([xs, -xs(p)], [ys, ys(p)]) == 0, "trial %d (single)", t);
%! endfor
%!test
%! ## the fast stage (products whose TwoProduct is exact, into doubles' chunks) against the
%! ## whole-range path alone, bit for bit: exponents over the whole range (products past
%! ## it and below the subnormals among them), long runs into one chunk (its carries),
%! ## and chunkings merged
%! rand ("state", 12); randn ("state", 12);          # (53-bit values: "seed" draws ~24 bits)
%! e = @(varargin) __gpudot__ ("exact_dot", varargin{:});
%! bits = @(v) typecast (v, ifelse (isa (v, "single"), "uint32", "uint64"));
%! for t = 1:60
%!   n = randi ([1 3000]);
%!   span = [4 60 600 1100](mod (t, 4) + 1);
%!   x = randn (1, n) .* 2 .^ randi ([-span span], 1, n);
%!   y = randn (1, n) .* 2 .^ randi ([-span span], 1, n);
%!   x(isinf (x)) = realmax;  y(isinf (y)) = -realmax;
%!   if (mod (t, 5) == 0)
%!     x(:) = (2^53 - 1) * 2^(t - 30);  y(:) = 1;  y(1:2:end) = 1 - 2^-52;
%!   endif
%!   if (mod (t, 7) == 0)
%!     x(randi (n, 1, 3)) = 0;  y(randi (n)) = 2^-1074;
%!   endif
%!   want = bits (e (x, y, 0, 1));
%!   assert (isequal (bits (e (x, y)), want), "trial %d", t);
%!   assert (isequal (bits (e (x, y, randi (n))), want), "trial %d", t);
%!   xs = single (x);  ys = single (y);
%!   xs(! isfinite (xs)) = 1;  ys(! isfinite (ys)) = -1;
%!   want = bits (e (xs, ys, 0, 1));
%!   assert (isequal (bits (e (xs, ys)), want), "trial %d (single)", t);
%!   assert (isequal (bits (e (xs, ys, randi (n))), want), "trial %d (single)", t);
%! endfor
%! ## the bulk loops' lanes (blocks of 8 through expansions on AVX-512 CPUs): subnormal
%! ## factors of products in their window, products at its edges, a slow one mid-block,
%! ## and sums near the overflow bound, against the whole-range path
%! x = [repmat(2^-1070, 1, 16), repmat(2^995, 1, 8), repmat(2^-500, 1, 8), 3, 2^996, -1];
%! y = [repmat(2^110, 1, 16), repmat(-2^4, 1, 8), repmat(2^-468, 1, 8), 1, 1, 2^-1074];
%! x = [x, repmat(1 + 2^-52, 1, 8 * 300)];  y = [y, repmat(2^1000 * (1 - 2^-53), 1, 8 * 300)];
%! y(1, 40:8:end) = -y(1, 40:8:end);
%! assert (isequal (bits (e (x, y)), bits (e (x, y, 0, 1))));
%! assert (isequal (bits (e (x(end:-1:1), y(end:-1:1))), bits (e (x, y, 0, 1))));
%! ## the lanes' windows (products, and doubles' rounding errors, within 2^34 below a top set
%! ## by the first block): past 4096 blocks (the accumulators' turn into the chunks), blocks
%! ## above the top, below the bottom and across it, against the whole-range path; each
%! ## product cancelled by its negation elsewhere, so every bit of them counts
%! randn ("state", 7);                            # (53-bit doubles: "seed" gives fewer bits)
%! for cls = {"single", "double"}
%!   xs = cast (randn (1, 2^15 + 5), cls{1});  ys = cast (randn (1, 2^15 + 5), cls{1});
%!   xs(1:8) = 2^-3;
%!   xs(20001:20008) = 2^20;  xs(25001:25003) = 2^-30;  xs(30001:30016) = 2^-40;
%!   ys(31001:31002) = 1;  ys(31003) = 3;        # (doubles: products with no rounding error)
%!   k = randperm (numel (xs));
%!   xs = [xs, -xs(k), 3 * 2^-60];  ys = [ys, ys(k), 1];
%!   assert (bits (e (xs, ys, 0, 1)), bits (cast (3 * 2^-60, cls{1})));
%!   assert (isequal (bits (e (xs, ys)), bits (e (xs, ys, 0, 1))), cls{1});
%!   assert (isequal (bits (e (xs(end:-1:1), ys(end:-1:1))), bits (e (xs, ys, 0, 1))), cls{1});
%!   assert (isequal (bits (e (-xs, ys, 1000)), bits (e (-xs, ys, 0, 1))), cls{1});
%! endfor
%! ## blocks outside the windows (products over 2^+-900, 2^+-80 for singles) into the
%! ## lanes' chunk sets (doubles) or bins (singles) a few blocks late: past 512 blocks (the
%! ## sets' turn into the chunks) and 4096 (the bins'), a zero product mid-run (the lanes
%! ## stop there, the ring emptied), in chunks; each product cancelled by its negation
%! ## elsewhere, so every bit of them counts
%! for cls = {"double", "single"}
%!   w = ifelse (strcmp (cls{1}, "double"), 450, 40);
%!   n = ifelse (strcmp (cls{1}, "double"), 2^14 + 3, 2^16 + 3);
%!   xs = cast (randn (1, n) .* 2 .^ randi ([-w w], 1, n), cls{1});
%!   ys = cast (randn (1, n) .* 2 .^ randi ([-w w], 1, n), cls{1});
%!   xs(7001) = 0;
%!   k = randperm (numel (xs));
%!   xs = [xs, -xs(k), 5 * 2^-60];  ys = [ys, ys(k), 1];
%!   assert (bits (e (xs, ys, 0, 1)), bits (cast (5 * 2^-60, cls{1})));
%!   assert (isequal (bits (e (xs, ys)), bits (e (xs, ys, 0, 1))), cls{1});
%!   assert (isequal (bits (e (xs(end:-1:1), ys(end:-1:1))), bits (e (xs, ys, 0, 1))), cls{1});
%!   assert (isequal (bits (e (xs, ys, 4099)), bits (e (xs, ys, 0, 1))), cls{1});
%! endfor
%! ## 4 10^4 terms of 53 bits into one chunk pair, the most each can take (its carries)
%! x = repmat ((2^53 - 1) * 2^13, 1, 20000);
%! y = ones (1, 20000);
%! y(2:2:end) = 1 + 2^-52;
%! assert (isequal (bits (e (x, y)), bits (e (x, y, 0, 1))));
%!test
%! ## zero products in the lanes (they stay there: ReLU-like and sparse data, blocks of
%! ## zeros alone, -0 alone, zeros in the wide blocks), and a window that moves up (data
%! ## growing past it), against the whole-range path; each product cancelled by its
%! ## negation elsewhere, so every bit counts
%! e = @(varargin) __gpudot__ ("exact_dot", varargin{:});
%! bits = @(v) typecast (v, ifelse (isa (v, "single"), "uint32", "uint64"));
%! randn ("state", 17);  rand ("state", 17);
%! for cls = {"double", "single"}
%!   w = ifelse (strcmp (cls{1}, "double"), 450, 40);
%!   for t = 1:6
%!     n = 2^13 + t;
%!     x = randn (1, n);  y = randn (1, n);
%!     switch (t)
%!       case 1, x = max (x, 0);                          # half 0
%!       case 2, x(rand (1, n) < 0.9) = 0;  x(1:24) = 0;  # sparse; the first blocks 0 alone
%!       case 3, x(rand (1, n) < 0.5) = -0;  x(1:8) = -0; # -0 products, a block of them
%!       case 4, x = x .* 2 .^ randi ([-w w], 1, n);  x(rand (1, n) < 0.5) = 0;  # wide
%!       case 5, n = 2^16 + 5;                            # growing past the window
%!               x = (1:n) .* 2 .^ floor ((1:n) / 1000);  y = randn (1, n);
%!       case 6, x = x .* 2 .^ randi ([-w w], 1, n);  x(rand (1, n) < 0.3) = -0;
%!               y(1:2:end) = 0;
%!     endswitch
%!     xs = cast (x, cls{1});  ys = cast (y, cls{1});
%!     k = randperm (n);
%!     xs = [xs, -xs(k), 3 * 2^-60];  ys = [ys, ys(k), 1];
%!     want = bits (e (xs, ys, 0, 1));
%!     assert (isequal (want, bits (cast (3 * 2^-60, cls{1}))), "%s %d", cls{1}, t);
%!     assert (isequal (bits (e (xs, ys)), want), "%s %d", cls{1}, t);
%!     assert (isequal (bits (e (xs(end:-1:1), ys(end:-1:1))), want), "%s %d", cls{1}, t);
%!     assert (isequal (bits (e (xs, ys, 1001)), want), "%s %d", cls{1}, t);
%!     ## an exact 0: +0 where a product is not -0 (the zeros' signs alone decide it)
%!     z = bits (e (xs(1:end-1), ys(1:end-1)));
%!     assert (isequal (z, bits (cast (0, cls{1}))), "%s %d", cls{1}, t);
%!     assert (isequal (z, bits (e (xs(1:end-1), ys(1:end-1), 0, 1))), "%s %d", cls{1}, t);
%!   endfor
%!   ## -0 products alone give -0; one +0 or nonzero product among them, +0
%!   o = ones (1, 40, cls{1});  nz = -zeros (1, 40, cls{1});
%!   assert (signbit (e (nz, o)) && signbit (e (nz(1:17), o(1:17))) && signbit (e (nz(1:7), o(1:7))));
%!   m = nz;  m(33) = 0;
%!   assert (! signbit (e (m, o)) && e (m, o) == 0);
%!   m = nz;  m(5) = 0;  m(7) = 2^-1074;           # (no block of 8: one product at a time)
%!   assert (! signbit (e (m(1:6), o(1:6))) && e (m(1:6), o(1:6)) == 0);
%!   assert (e (m(1:7), o(1:7)), cast (2^-1074, cls{1}));
%!   m = nz;  m(9) = 2^-20;  m(37) = -2^-20;
%!   assert (! signbit (e (m, o)) && e (m, o) == 0);
%!   ## a block of zeros beside a product that underflows (doubles: x y rounds to 0, its
%!   ## exact value, -2^-1200, does not: the sum rounds to -0), beside 0 * Inf (NaN) and
%!   ## beside Inf
%!   x = cast ([1, zeros(1, 15), 2^-600, 0, 0, 1, 0, 0, 0, 0], cls{1});
%!   y = cast ([1, ones(1, 15), -2^-600, 1, 1, -1, 1, 1, 1, 1], cls{1});
%!   assert (bits (e (x, y)), bits (e (x, y, 0, 1)));
%!   assert (signbit (e (x, y)) == strcmp (cls{1}, "double"));
%!   x(3) = Inf;  y(3) = 0;
%!   assert (isnan (e (x, y)));
%!   y(3) = -1;
%!   assert (e (x, y), cast (-Inf, cls{1}));
%! endfor
%!test
%! ## each level of bulk loop the CPU runs (AVX-512 lanes, AVX2 ones, one product at a
%! ## time) on the same data families, against the whole-range path, bit for bit
%! e = @(varargin) __gpudot__ ("exact_dot", varargin{:});
%! bits = @(v) typecast (v, ifelse (isa (v, "single"), "uint32", "uint64"));
%! top = __gpudot__ ("exact_lanes", -1);
%! unwind_protect
%!   for level = unique ([top, 3, 0])
%!     assert (__gpudot__ ("exact_lanes", level), min (level, top));
%!     randn ("state", 31);  rand ("state", 31);
%!     for cls = {"double", "single"}
%!       w = ifelse (strcmp (cls{1}, "double"), 450, 40);
%!       for t = 1:7
%!         n = 2^15 + 3 * t;
%!         x = randn (1, n);  y = randn (1, n);
%!         switch (t)
%!           case 2, x = max (x, 0);
%!           case 3, x(rand (1, n) < 0.9) = 0;  x(1:12) = -0;
%!           case 4, x = x .* 2 .^ randi ([-w w], 1, n);
%!           case 5, x = (1:n) .* 2 .^ floor ((1:n) / 1000);
%!           case 6, x = x .* 2 .^ (40 * (rand (1, n) < 0.5));
%!           case 7, x(1:4:end) = 2^-30;  y(2:4:end) = 2^20;
%!         endswitch
%!         xs = cast (x, cls{1});  ys = cast (y, cls{1});
%!         k = randperm (n);
%!         xs = [xs, -xs(k), 3 * 2^-60];  ys = [ys, ys(k), 1];
%!         want = bits (e (xs, ys, 0, 1));
%!         assert (isequal (want, bits (cast (3 * 2^-60, cls{1}))), "%d %s %d", level, cls{1}, t);
%!         assert (isequal (bits (e (xs, ys)), want), "level %d, %s %d", level, cls{1}, t);
%!         assert (isequal (bits (e (xs, ys, 4097)), want), "level %d, %s %d", level, cls{1}, t);
%!         z = e (xs(1:end-1), ys(1:end-1));
%!         assert (z == 0 && ! signbit (z), "level %d, %s %d", level, cls{1}, t);
%!       endfor
%!       o = ones (1, 40, cls{1});  nz = -zeros (1, 40, cls{1});
%!       assert (signbit (e (nz, o)) && signbit (e (nz(1:13), o(1:13))), "level %d", level);
%!       m = nz;  m(21) = 0;
%!       assert (! signbit (e (m, o)), "level %d", level);
%!       x = cast ([1, zeros(1, 15), 2^-600, 0, 0, 1, 0, 0, 0, 0], cls{1});
%!       y = cast ([1, ones(1, 15), -2^-600, 1, 1, -1, 1, 1, 1, 1], cls{1});
%!       assert (isequal (bits (e (x, y)), bits (e (x, y, 0, 1))), "level %d", level);
%!       x(3) = Inf;
%!       assert (e (x, y), cast (Inf, cls{1}));
%!     endfor
%!   endfor
%! unwind_protect_cleanup
%!   __gpudot__ ("exact_lanes", -1);
%! end_unwind_protect
%!test
%! ## gd_round_near, the device's finish of a warp's output from its partial sums: where it
%! ## answers, every sum within e of h + l rounds to its value (both ends, rounded exactly),
%! ## in single and double, sums and (single) square roots; random sums nearly always get
%! ## an answer, double roots never.  Sums on or beside the rounding boundaries (float
%! ## midpoints, half gaps, powers of two, squares of midpoints) try its margins.
%! rand ("seed", 31);  randn ("seed", 31);
%! n = 4000;
%! for sgl = [0 1]
%!   for sq = [0 1]
%!     h = randn (1, n) .* 2 .^ randi ([-200 200], 1, n);
%!     if (sgl)
%!       h = randn (1, n) .* 2 .^ randi ([-100 100], 1, n);
%!     endif
%!     if (sq)
%!       h = abs (h);
%!     endif
%!     l = h .* (rand (1, n) - 0.5) * 2^-53;
%!     e = abs (h) .* 2 .^ -randi ([62 110], 1, n);
%!     [v, ok, lo, hi] = __gpudot__ ("exact_near", h, l, e, sgl, sq);
%!     ok = logical (ok);
%!     assert (v(ok), lo(ok));
%!     assert (v(ok), hi(ok));
%!     if (sq && ! sgl)
%!       assert (! any (ok));
%!     else
%!       assert (mean (ok) > 0.95, "single %d sq %d: %g answered", sgl, sq, mean (ok));
%!     endif
%!     ## beside the boundaries: a float's midpoint or its square, a double's half gap, by
%!     ## 2^-k of it, with and without e
%!     if (sgl)
%!       f = single (randn (1, n) .* 2 .^ randi ([-60 60], 1, n));
%!       b = (double (f) + double (f + eps (f) .* sign (f))) / 2;
%!       if (sq)
%!         b = abs (b) .^ 2;
%!       endif
%!       k = randi ([20 120], 1, n);
%!       h = double (b);
%!       l = (rand (1, n) - 0.5) .* abs (b) .* 2 .^ -k;
%!       l(1:3:end) = 0;
%!       e = abs (b) .* 2 .^ -(k + randi ([-2 40], 1, n));
%!       e(2:3:end) = 0;
%!     else
%!       ## h + l inside a half gap of h (above or below; a power of two's below is half)
%!       ## by d, and e from d / 8 to 8 d: the intervals that reach past the midpoint
%!       h = randn (1, n) .* 2 .^ randi ([-200 200], 1, n);
%!       h(1:3:end) = sign (h(1:3:end)) .* 2 .^ round (log2 (abs (h(1:3:end))));
%!       if (sq)
%!         h = abs (h);
%!       endif
%!       up = rand (1, n) < 0.5;
%!       gap = eps (h);
%!       pow2 = abs (h) == 2 .^ round (log2 (abs (h)));
%!       gap(! up & pow2) /= 2;
%!       d = gap / 2 .* 2 .^ -randi ([4 20], 1, n) .* rand (1, n);
%!       l = sign (h) .* (2 * up - 1) .* (gap / 2 - d);
%!       e = d .* 2 .^ randi ([-3 3], 1, n);
%!       e(1:5:end) = 0;
%!     endif
%!     [v, ok, lo, hi] = __gpudot__ ("exact_near", h, l, e, sgl, sq);
%!     ok = logical (ok);
%!     assert (v(ok), lo(ok));
%!     assert (v(ok), hi(ok));
%!   endfor
%! endfor
%! ## not answered: ties, a single's midpoint with a little above it, zero, overflow's edge
%! [~, ok] = __gpudot__ ("exact_near", [1, 1 + 2^-24, 0, 2^901, realmax], ...
%!                       [2^-53, 2^-70, 0, 0, 0], [0 0 0 0 0], 0, 0);
%! assert (ok, [0 1 0 0 0]);
%! [~, ok] = __gpudot__ ("exact_near", [1 + 2^-24, 3], [2^-70, 0], [0 0], 1, 0);
%! assert (ok, [0 1]);

%!test
%! ## gd_near62, a cosine's sums from a warp's partial sums: where it answers, its 62 bits
%! ## are those of both ends of the interval, rounded exactly; random sums nearly always get
%! ## one.  Sums beside the 62-bit grid's midpoints (by d, e from d / 8 to 8 d) and beside
%! ## powers of two try its margins.
%! rand ("seed", 32);  randn ("seed", 32);
%! n = 4000;
%! h = randn (1, n) .* 2 .^ randi ([-800 800], 1, n);
%! [ok, same] = __gpudot__ ("exact_near62", h, h .* (rand (1, n) - 0.5) * 2^-53, ...
%!                          abs (h) .* 2 .^ -randi ([75 110], 1, n));
%! assert (all (same(logical (ok))));
%! assert (mean (ok) > 0.95);
%! h(1:3:end) = sign (h(1:3:end)) .* 2 .^ round (log2 (abs (h(1:3:end))));
%! q = 2 .^ (floor (log2 (abs (h))) - 61);        # the grid at h
%! d = q .* 2 .^ -randi ([2 30], 1, n) .* rand (1, n);
%! l = sign (randn (1, n)) .* ((randi ([0 255], 1, n) + 0.5) .* q + sign (randn (1, n)) .* d);
%! e = d .* 2 .^ randi ([-3 3], 1, n);
%! e(1:5:end) = 0;
%! [ok, same] = __gpudot__ ("exact_near62", h, l, e);
%! assert (all (same(logical (ok))));
%! assert (any (ok) && ! all (ok));

%!error <two real arrays> __gpudot__ ("exact_dot", [1 2], single ([1 2]))
%!error <two real arrays> __gpudot__ ("exact_dot", [1 2], [1 2 3])
