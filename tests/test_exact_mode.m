## "accum", "exact" in gdot, gnorm and gcosine against results computed in rational
## arithmetic (tests/exact_ref.py: exact_cases.txt, exact_norm_cases.txt,
## exact_cos_cases.txt): each case as vectors, permuted, as matrix columns and rows
## (DIM 1 and 2), complex, on the CPU engine and, where a GPU is usable, on it and as
## garrays, bit for bit (cosines: within an ulp); then long runs over the pool's threads,
## integer, sparse and broadcast operands, and the errors.

%!function c = read_cases (name)
%!  f = fopen (fullfile (fileparts (which ("test_exact_mode")), name));
%!  c = {};
%!  while (ischar (l = fgetl (f)))
%!    w = strsplit (l);
%!    c{end+1} = {w{1}, str2double(w{2}), cellfun(@(h) hex_value (h, w{1}), w(3:end))};
%!  endwhile
%!  fclose (f);
%!endfunction

%!function b = bits (v)
%!  b = typecast (v(:)', ifelse (isa (v, "single"), "uint32", "uint64"));
%!endfunction

%!function d = devices ()
%!  d = {"cpu"};
%!  if (gpudot_gpu_available ())
%!    d{end+1} = "gpu";
%!  endif
%!endfunction

%!test
%! ## dot products: every way of calling, the same bits as the rational result
%! cases = read_cases ("exact_cases.txt");
%! assert (numel (cases) > 100);
%! rand ("seed", 21);
%! for c = 1:numel (cases)
%!   [cls, n, v] = cases{c}{:};
%!   x = v(1:n);  y = v(n+1:2*n);  want = v(end);
%!   p = randperm (n);
%!   for dev = devices ()
%!     o = {"accum", "exact", "device", dev{1}};
%!     X = [x(:), x(p)(:)];  Y = [y(:), y(p)(:)];
%!     got = [gdot(x, y, o{:}), gdot(x(p)', y(p)', o{:}), gdot(X, Y, 1, o{:}), ...
%!            gdot(X.', Y.', 2, o{:}).', real(gdot (complex (x, 1), y, o{:}))];
%!     if (strcmp (dev{1}, "gpu"))     # the device kernel (columns), the host's (rows)
%!       got = [got, gather(gdot (garray (x), garray (y), "accum", "exact")), ...
%!              gather(gdot (garray (X), garray (Y), 1, "accum", "exact")), ...
%!              gather(gdot (garray (X.'), garray (Y.'), 2, "accum", "exact")).', ...
%!              real(gather (gdot (garray (complex (x, 1)), garray (y), "accum", "exact"))), ...
%!              real(gather (gdot (garray (x), garray (complex (y, 2)), "accum", "exact")))];
%!       if (cls == "s")   # a double garray beside single data: rounded once, into single
%!         got = [got, gdot(garray (double (x)), y, "accum", "exact")];
%!       endif
%!     endif
%!     assert (isequal (bits (got), repmat (bits (want), 1, numel (got))), ...
%!             "case %d (%s, n = %d, %s): %.17g, want %.17g", c, cls, n, dev{1}, got(1), want);
%!   endfor
%! endfor

%!test
%! ## 2-norms (the square root correctly rounded: ties, overflow, subnormals) and 1-norms
%! cases = read_cases ("exact_norm_cases.txt");
%! assert (numel (cases) > 50);
%! rand ("seed", 22);
%! for c = 1:numel (cases)
%!   [cls, n, v] = cases{c}{:};
%!   x = v(1:n);  two = v(n+1);  one = v(n+2);
%!   p = randperm (n);
%!   for dev = devices ()
%!     o = {"accum", "exact", "device", dev{1}};
%!     g2 = [gnorm(x, o{:}), gnorm(x(p)', o{:}), gnorm([x(:), x(p)(:)], 2, 1, o{:}), ...
%!           gnorm(complex (x, 0), o{:}), gnorm(x, "fro", o{:})];
%!     g1 = [gnorm(x, 1, o{:}), gnorm(x(p), 1, o{:}), gnorm([x; x(p)], 1, 2, o{:}).'];
%!     if (strcmp (dev{1}, "gpu"))   # the device kernel's squares and magnitudes
%!       gx = garray (x);  gX = garray ([x(:), x(p)(:)]);
%!       g2 = [g2, gather(gnorm (gx, o{1:2})), gather(gnorm (gX, 2, 1, o{1:2})), ...
%!             gather(gnorm (garray (complex (x, 0)), o{1:2}))];
%!       g1 = [g1, gather(gnorm (gx, 1, o{1:2})), gather(gnorm (gX, 1, 1, o{1:2}))];
%!     endif
%!     assert (isequal (bits (g2), repmat (bits (two), 1, numel (g2))), ...
%!             "case %d (%s, n = %d, %s): 2-norm %.17g, want %.17g", c, cls, n, dev{1}, g2(1), two);
%!     assert (isequal (bits (g1), repmat (bits (one), 1, numel (g1))), ...
%!             "case %d (%s, n = %d, %s): 1-norm %.17g, want %.17g", c, cls, n, dev{1}, g1(1), one);
%!   endfor
%! endfor

%!test
%! ## cosines within an ulp of the correctly rounded one, the same bits in any order
%! cases = read_cases ("exact_cos_cases.txt");
%! rand ("seed", 23);
%! for c = 1:numel (cases)
%!   [cls, n, v] = cases{c}{:};
%!   x = v(1:n);  y = v(n+1:2*n);  want = v(end);
%!   p = randperm (n);
%!   for dev = devices ()
%!     o = {"accum", "exact", "device", dev{1}};
%!     got = [gcosine(x, y, o{:}), gcosine(x(p)', y(p)', o{:}), gcosine([x; x(p)], [y; y(p)], 2, o{:}).'];
%!     if (strcmp (dev{1}, "gpu"))   # the device kernel's three sums
%!       got = [got, gather(gcosine (garray (x), garray (y), o{1:2})), ...
%!              gather(gcosine (garray ([x(:), x(p)(:)]), garray ([y(:), y(p)(:)]), o{1:2}))];
%!     endif
%!     assert (abs (double (got(1)) - double (want)) <= eps (want), ...
%!             "case %d (%s, %s): %.17g, want %.17g", c, cls, dev{1}, got(1), want);
%!     assert (isequal (bits (got), repmat (bits (got(1)), 1, numel (got))), "case %d", c);
%!   endfor
%! endfor

%!test
%! ## long runs split over the pool's threads, and matrices of them, against the core
%! ## summing in one thread (__gpudot__ ("exact_dot")); both engines the same bits
%! randn ("seed", 24); rand ("seed", 24);
%! n = 3e5 + 17;
%! x = randn (n, 1) .* 2 .^ randi ([-300 300], n, 1);
%! y = randn (n, 1) .* 2 .^ randi ([-300 300], n, 1);
%! want = __gpudot__ ("exact_dot", x, y);
%! for dev = devices ()
%!   o = {"accum", "exact", "device", dev{1}};
%!   assert (bits (gdot (x, y, o{:})), bits (want));
%!   assert (bits (gdot ([x, x(end:-1:1), 2 * x], [y, y(end:-1:1), y], o{:})), ...
%!           bits ([want, want, 2 * want]));
%!   assert (bits (gnorm (x, o{:})), bits (gnorm ([x(end:-1:1); 0], o{:})));
%!   assert (bits (gnorm (x, 1, o{:})), bits (__gpudot__ ("exact_dot", abs (x), ones (n, 1))));
%!   xs = single (x / 2^300 * 2^10);  ys = single (y / 2^300 * 2^10);
%!   assert (bits (gdot (xs, ys, o{:})), bits (__gpudot__ ("exact_dot", xs, ys)));
%! endfor
%! if (gpudot_gpu_available ())    # the device kernel: spans past its fast range, columns
%!   xw = x .* 2 .^ randi ([-700 700], n, 1);  yw = y .* 2 .^ randi ([-700 700], n, 1);
%!   xw(1:1000:end) = 0;  yw(7) = -0;  xw(9) = 2^-1074;
%!   G = garray ([x, xw, x]);  H = garray ([y, yw, -y]);
%!   want = [want, __gpudot__("exact_dot", xw, yw), -want];
%!   assert (bits (gather (gdot (G, H, "accum", "exact"))), bits (want));
%!   assert (bits (gather (gdot (G, garray (y), "accum", "exact"))), ...
%!           bits (arrayfun (@(j) __gpudot__ ("exact_dot", gather (G(:, j)), y), 1:3)));
%!   assert (bits (gather (gdot (garray (xs), garray (ys), "accum", "exact"))), ...
%!           bits (__gpudot__ ("exact_dot", xs, ys)));
%!   ## norms and cosines on the device, the CPU engine's bits
%!   c = {"accum", "exact", "device", "cpu"};
%!   for p = {1, 2, Inf, -Inf, 0}
%!     assert (bits (gather (gnorm (G, p{1}, 1, c{1:2}))), bits (gnorm ([x, xw, x], p{1}, 1, c{:})));
%!   endfor
%!   assert (bits (gather (gnorm (garray (complex (xw, yw)), c{1:2}))), ...
%!           bits (gnorm (complex (xw, yw), c{:})));
%!   assert (bits (gather (gcosine (G, H, c{1:2}))), bits (gcosine ([x, xw, x], [y, yw, -y], c{:})));
%!   assert (bits (gather (gcosine (garray (y), G, c{1:2}))), bits (gcosine (y, [x, xw, x], c{:})));
%!   assert (bits (gather (gcosine (garray (xs), garray (ys), c{1:2}))), bits (gcosine (xs, ys, c{:})));
%!   assert (bits (gather (gnorm (garray (xs), 1, c{1:2}))), bits (gnorm (xs, 1, c{:})));
%!   ## complex: conj (x) y's parts, and cosines' four sums
%!   cb = @(v) bits ([real(v(:)); imag(v(:))]);
%!   Zx = complex (x, xw);  Zy = complex (yw, -y);  zs = complex (xs, ys);
%!   for a = {{Zx, Zy}, {Zx, y}, {x, Zy}, {[Zx, Zx], [Zy, y]}, {zs, zs}, {zs, ys}}
%!     [u, v] = a{1}{:};
%!     assert (cb (gather (gdot (garray (u), garray (v), c{1:2}))), cb (gdot (u, v, c{:})));
%!     assert (cb (gather (gcosine (garray (u), garray (v), c{1:2}))), cb (gcosine (u, v, c{:})));
%!   endfor
%! endif

%!test
%! ## the device kernel on products near the warps' first ones and far below: sums of 0 in
%! ## two orders, and the CPU engine's bits (its lanes' windows at their lowest octave)
%! if (gpudot_gpu_available ())
%!   o = {"accum", "exact"};
%!   c = {"accum", "exact", "device", "cpu"};
%!   x = [1.5 * ones(1, 8), (2^-23 + 2^-75) * ones(1, 8), -(2^-23 - 2^-53) * ones(1, 8)];
%!   assert (gather (gdot (garray (x), garray (ones (1, 24)), o{:})), 12 + eps (12));
%!   rand ("state", 26);  randn ("state", 26);
%!   n = 2^20 + 3;
%!   for cls = {"double", "single"}
%!     x = cast ((1 + rand (n, 1)) .* 2 .^ -randi ([0 40], n, 1) .* sign (randn (n, 1)), cls{1});
%!     y = cast ((1 + rand (n, 1)) .* 2 .^ -randi ([0 12], n, 1), cls{1});
%!     p = randperm (n);
%!     assert (gather (gdot (garray ([x; -x(p)]), garray ([y; y(p)]), o{:})) == 0);
%!     assert (gdot ([x; -x(p)], [y; y(p)], c{:}) == 0);
%!     assert (isequal (bits (gather (gdot (garray (x), garray (y), o{:}))), ...
%!                      bits (__gpudot__ ("exact_dot", x, y))), cls{1});
%!     assert (bits (gather (gnorm (garray (x), 1, o{:}))), bits (gnorm (x, 1, c{:})));
%!     assert (bits (gather (gnorm (garray (x), o{:}))), bits (gnorm (x, c{:})));
%!     assert (bits (gather (gcosine (garray (x), garray (y), o{:}))), bits (gcosine (x, y, c{:})));
%!   endfor
%! endif

%!test
%! ## zero products on both engines (the fast paths take them): ReLU-like and sparse data,
%! ## -0 alone (-0) and a +0 or a product that underflows among them; the same bits as the
%! ## core, in columns and in one long run
%! randn ("state", 27);  rand ("state", 27);
%! n = 2^20 + 5;
%! for cls = {"double", "single"}
%!   x = cast (max (randn (n, 1), 0), cls{1});  y = cast (randn (n, 1), cls{1});
%!   s = x;  s(rand (n, 1) < 0.8) = 0;
%!   nz = -zeros (n, 1, cls{1});  o = ones (n, 1, cls{1});
%!   pz = nz;  pz(n - 3) = 0;
%!   uf = nz;  uf(77777) = 2^-600;                 # (singles: 0 * -0 there)
%!   uy = o;  uy(77777) = -2^-600;
%!   X = [x, s, nz, pz, uf];  Y = [y, y, o, o, uy];
%!   want = arrayfun (@(j) __gpudot__ ("exact_dot", X(:, j), Y(:, j)), 1:5);
%!   assert (signbit (want(3:5)) == [true, false, true]);
%!   for dev = devices ()
%!     c = {"accum", "exact", "device", dev{1}};
%!     assert (isequal (bits (gdot (X, Y, c{:})), bits (want)), "%s %s", cls{1}, dev{1});
%!     assert (isequal (bits (gdot (X(:, 3), Y(:, 3), c{:})), bits (want(3))));
%!   endfor
%!   if (gpudot_gpu_available ())
%!     G = garray (X);  H = garray (Y);
%!     assert (isequal (bits (gather (gdot (G, H, "accum", "exact"))), bits (want)), cls{1});
%!     for j = 1:5
%!       assert (isequal (bits (gather (gdot (G(:, j), H(:, j), "accum", "exact"))), ...
%!                        bits (want(j))), "%s column %d", cls{1}, j);
%!     endfor
%!     c = {"accum", "exact", "device", "cpu"};
%!     assert (bits (gather (gnorm (G, 1, 1, c{1:2}))), bits (gnorm (X, 1, 1, c{:})));
%!     assert (bits (gather (gnorm (G, 2, 1, c{1:2}))), bits (gnorm (X, 2, 1, c{:})));
%!     assert (bits (gather (gcosine (G, H, c{1:2}))), bits (gcosine (X, Y, c{:})));
%!   endif
%! endfor

%!test
%! ## integers (past the gateway's pieces of 2^22), sparse, broadcast and mixed classes
%! randn ("seed", 25); rand ("seed", 25);
%! n = 2^22 + 5;
%! xi = int32 (randi ([-2^31 + 1, 2^31 - 1], n, 1));  yi = int32 (randi ([-2^31 + 1, 2^31 - 1], n, 1));
%! assert (bits (gdot (xi, yi, "accum", "exact")), bits (__gpudot__ ("exact_dot", double (xi), double (yi))));
%! S = sprandn (200, 6, 0.1);  S(3, 2) = -0;  F = randn (200, 6) .* 2 .^ randi ([-60 60], 200, 6);
%! o = {"accum", "exact"};
%! assert (bits (gdot (S, F, o{:})), bits (gdot (full (S), F, o{:})));
%! assert (bits (gdot (F, S, o{:})), bits (gdot (F, full (S), o{:})));
%! assert (bits (gcosine (S, F, o{:})), bits (gcosine (full (S), F, o{:})));
%! for p = {1, 2, Inf, -Inf, 0}
%!   assert (bits (gnorm (S, p{1}, o{:})), bits (gnorm (full (S), p{1}, o{:})));
%! endfor
%! Z = complex (randn (30, 4), randn (30, 4));
%! assert (bits (gnorm (sparse (Z), 1, o{:})), bits (gnorm (Z, 1, o{:})));
%! q = randn (200, 1);
%! want = arrayfun (@(j) gdot (q, F(:, j), o{:}), 1:6);
%! assert (bits (gdot (q, F, o{:})), bits (want));
%! assert (bits (gdot (F, q, o{:})), bits (want));
%! assert (bits (gdot (single (F), F, o{:})), bits (gdot (single (F), single (F), o{:})));
%! Z2 = complex (randn (30, 4), randn (30, 4));
%! d = gdot (Z, Z2, o{:});
%! assert (bits (real (d)), bits (arrayfun (@(j) __gpudot__ ("exact_dot", [real(Z(:,j)); imag(Z(:,j))], [real(Z2(:,j)); imag(Z2(:,j))]), 1:4)));
%! assert (bits (imag (d)), bits (arrayfun (@(j) __gpudot__ ("exact_dot", [real(Z(:,j)); -imag(Z(:,j))], [imag(Z2(:,j)); real(Z2(:,j))]), 1:4)));

%!test
%! ## IEEE's cases, as the exact sums give them
%! o = {"accum", "exact"};
%! assert (gdot ([1e200 1e200 3], [1e200 -1e200 0.5], o{:}), 1.5);
%! assert (gnorm ([1e200 1e200], o{:}), sqrt (2) * 1e200);
%! assert (gnorm ([3e-300 4e-300], o{:}), 5e-300);
%! assert (isnan (gdot ([Inf 1], [0 1], o{:})) && isnan (gdot ([Inf -Inf], [1 1], o{:})));
%! assert (gdot ([Inf 1e308], [1 1e308], o{:}), Inf);
%! assert (isnan (gnorm (complex (-Inf, NaN), o{:})) && gnorm (complex (-Inf, NaN), 1, o{:}) == Inf);
%! assert (isnan (gcosine ([0 0], [1 2], o{:})) && isnan (gcosine ([Inf 1], [1 1], o{:})));
%! assert (gcosine ([1e200 1e200], [1e200 1e200], o{:}), 1);
%! assert (signbit (gdot ([-0 0], [1 -1], o{:})) && ! signbit (gdot ([1 -1], [1 1], o{:})));
%! assert (gdot (zeros (0, 1), zeros (0, 1), o{:}), 0);
%! assert (gnorm ([1 -3 2], Inf, o{:}), 3);
%! assert (gnorm ([1 -3 2], -Inf, o{:}), 1);
%! assert (gnorm ([1 0 2], 0, o{:}), 2);
%! assert (gnorm (single ([3 4]), o{:}), single (5));
%! if (gpudot_gpu_available ())    # the device kernel's IEEE cases
%!   g = @(a, b) gather (gdot (garray (a), garray (b), o{:}));
%!   assert (g ([1e200 1e200 3], [1e200 -1e200 0.5]), 1.5);
%!   assert (isnan (g ([Inf 1], [0 1])) && isnan (g ([Inf -Inf], [1 1])) && isnan (g ([NaN 1], [1 1])));
%!   assert (g ([Inf 1e308], [1 1e308]), Inf);
%!   assert (g ([-Inf 1], [1 1]), -Inf);
%!   assert (signbit (g ([-0 0], [1 -1])) && ! signbit (g ([1 -1], [1 1])) && ! signbit (g ([0 -0], [1 -1])));
%!   assert (g ([realmax realmax -realmax], [1 1 1]), realmax);
%!   assert (g (2^-1074, 0.75), 2^-1074);
%!   assert (g ([1e-200 1e-200], [1e-200 -1e-200]), 0);
%!   assert (g (single ([1 2^-24 2^-60]), single ([1 1 1])), single (1 + 2^-23));
%!   n = @(a, varargin) gather (gnorm (garray (a), varargin{:}, o{:}));
%!   assert (n ([1e200 1e200]), sqrt (2) * 1e200);
%!   assert (n ([3e-300 4e-300]), 5e-300);
%!   assert (isnan (n ([Inf NaN])) && n ([Inf 1]) == Inf && n ([-Inf 1], 1) == Inf);
%!   assert (isnan (n ([NaN 1], 1)) && isnan (n ([NaN 1], Inf)));
%!   assert (! signbit (n ([-0 -0])) && ! signbit (n ([-0 -0], 1)));
%!   assert (n ([1 -3 2], Inf), 3);
%!   assert (n ([1 -3 2], -Inf), 1);
%!   assert (n ([1 0 2], 0), 2);
%!   assert (n (single ([3 4])), single (5));
%!   assert (n (complex ([3 0], [0 4])), 5);
%!   c = @(a, b) gather (gcosine (garray (a), garray (b), o{:}));
%!   assert (isnan (c ([0 0], [1 2])) && isnan (c ([Inf 1], [1 1])) && isnan (c ([NaN 1], [1 1])));
%!   assert (c ([1e200 1e200], [1e200 1e200]), 1);
%!   assert (c ([1e-200 1e-200], [1e-200 1e-200]), 1);
%!   assert (c ([1 2], [-1 -2]), -1);
%!   assert (c (single ([1 2]), single ([2 4])), single (1));
%!   z = g ([1e200i 1e200i 3i], [1e200i -1e200i 0.5i]);     # complex: 1e400 - 1e400 + 1.5
%!   assert ([real(z), imag(z)], [1.5 0]);
%!   assert (isnan (real (g ([Inf 1], [1i 1]))));
%!   z = g (complex ([3 4], [0 0]), complex ([3 4], [0 0]));
%!   assert ([real(z), imag(z)], [25 0]);
%!   z = c ([1i 2], [1i 2]);
%!   assert ([real(z), imag(z)], [1 0]);
%! endif

%!testif ; gpudot_gpu_available ()
%! ## the device kernel's launches against the CPU engine's bits: outputs past the mapped
%! ## area, past one launch (4096 of several blocks, a grid's 65535 rows of one block),
%! ## finished on the device or by several blocks; each call twice (its digits left zero for
%! ## the next); runs read as vectors with a tail, columns off 16-byte boundaries, runs of
%! ## one element; complex columns
%! o = {"accum", "exact"};
%! randn ("seed", 5);
%! for cls = {"single", "double", "complex"}
%!   cl = ifelse (strcmp (cls{1}, "complex"), "double", cls{1});
%!   for sz = [3 4100; 37 70; 1 5000; 1030 9; 2 70000]'
%!     A = cast (randn (sz(1), sz(2)) .* 2 .^ randi ([-30 30], sz(1), sz(2)), cl);
%!     B = cast (randn (sz(1), sz(2)), cl);
%!     if (strcmp (cls{1}, "complex"))
%!       A = complex (A, B(:, end:-1:1));  B = complex (B, 1);
%!     endif
%!     gA = garray (A);  gB = garray (B);
%!     want = {gdot(A, B, 1, o{:}), gnorm(A, 2, 1, o{:}), gnorm(A, 1, 1, o{:}), ...
%!             gcosine(A, B, 1, o{:})};
%!     for rep = 1:2
%!       got = {gather(gdot (gA, gB, 1, o{:})), gather(gnorm (gA, 2, 1, o{:})), ...
%!              gather(gnorm (gA, 1, 1, o{:})), gather(gcosine (gA, gB, 1, o{:}))};
%!       for k = 1:numel (want)
%!         assert (isequal (bits (got{k}), bits (want{k})), "%s %dx%d, sum %d, call %d", ...
%!                 cls{1}, sz(1), sz(2), k, rep);
%!       endfor
%!     endfor
%!   endfor
%! endfor

%!test
%! ## outputs of a warp each on the GPU (thousands of columns), and short runs on the CPU
%! ## engine, which finish from their partial sums where the rounding is certain, else from
%! ## their digits (accumulators): the rational cases (ties,
%! ## midpoints, subnormal and overflowing results) as columns, each in many orders and
%! ## padded with zeros, against their results and the CPU engine's bits; sums beside
%! ## single midpoints, double half gaps and powers of two
%! o = {"accum", "exact"};
%! c = {"accum", "exact", "device", "cpu"};
%! rand ("seed", 27);  randn ("seed", 27);
%! for file = {"exact_cases.txt", "exact_norm_cases.txt"}
%!   cases = read_cases (file{1});
%!   for cls = {"s", "d"}
%!     cc = cases(cellfun (@(k) k{1} == cls{1}, cases));
%!     nmax = max (cellfun (@(k) k{2}, cc));
%!     reps = ceil (6000 / numel (cc));
%!     X = Y = zeros (nmax, numel (cc) * reps, ifelse (cls{1} == "s", "single", "double"));
%!     want = zeros (2, numel (cc) * reps, class (X));
%!     for j = 1:numel (cc) * reps
%!       [~, n, v] = cc{mod (j - 1, numel (cc)) + 1}{:};
%!       p = randperm (nmax, n);            # the case's elements at random rows
%!       q = randperm (n);
%!       X(p, j) = v(q);
%!       if (strcmp (file{1}, "exact_cases.txt"))
%!         Y(p, j) = v(n + q);
%!         want(1, j) = v(end);
%!       else
%!         want(:, j) = v(n+1:n+2);
%!       endif
%!     endfor
%!     G = garray (X);
%!     if (strcmp (file{1}, "exact_cases.txt"))
%!       got = gather (gdot (G, garray (Y), o{:}));
%!       nz = want(1, :) != 0;              # (a zero's sign: the padding's +0 decides it)
%!       assert (isequal (bits (got(nz)), bits (want(1, nz))), "%s dots", cls{1});
%!       assert (bits (got), bits (gdot (X, Y, c{:})));
%!       ## cosines (their sums' 62 bits) and complex dot products (two sums)
%!       assert (bits (gather (gcosine (G, garray (Y), o{:}))), bits (gcosine (X, Y, c{:})));
%!       Z = complex (X, Y(:, end:-1:1));
%!       cb = @(v) bits ([real(v(:)); imag(v(:))]);
%!       assert (cb (gather (gdot (garray (Z), garray (Y), o{:}))), cb (gdot (Z, Y, c{:})));
%!       assert (cb (gather (gcosine (garray (Z), garray (Y), o{:}))), cb (gcosine (Z, Y, c{:})));
%!     else
%!       assert (isequal (bits (gather (gnorm (G, 2, 1, o{:}))), bits (want(1, :))), "%s 2-norms", cls{1});
%!       assert (isequal (bits (gather (gnorm (G, 1, 1, o{:}))), bits (want(2, :))), "%s 1-norms", cls{1});
%!     endif
%!   endfor
%! endfor
%! ## 1 + 2^-24 (a single midpoint) or 1 + 2^-53 (a double's half gap), 2^-k more or less
%! ## or nothing (a tie: to 1), among pairs that cancel, scaled, in any order
%! m = 4096;
%! s = 2 * (rand (1, m) > 0.5) - 1;  s(1:7:end) = 0;
%! for cl = {"single", "double"}
%!   half = ifelse (strcmp (cl{1}, "single"), 2^-24, 2^-53);
%!   k = ifelse (strcmp (cl{1}, "single"), randi ([26 100], 1, m), randi ([55 160], 1, m));
%!   p2 = 2 .^ randi ([-40 40], 1, m);
%!   T = zeros (16, m, cl{1});
%!   T(1, :) = 1;  T(2, :) = half;  T(3, :) = s .* 2 .^ -k;
%!   T(4:2:14, :) = randn (6, m) .* 2 .^ randi ([-10 10], 6, m);
%!   T(5:2:15, :) = -T(4:2:14, :);
%!   T = T .* p2;
%!   for j = 1:m
%!     T(:, j) = T(randperm (16), j);
%!   endfor
%!   Y = ones (16, m, cl{1});
%!   got = gather (gdot (garray (T), garray (Y), o{:}));
%!   assert (isequal (bits (got), bits (cast (p2 .* (1 + 2 * half * (s > 0)), cl{1}))), "%s midpoints", cl{1});
%!   assert (bits (got), bits (gdot (T, Y, c{:})));
%! endfor

%!error <"exact" takes P = 1, 2, Inf> gnorm ([1 2], 3, "accum", "exact")
%!error <"exact" takes P = 1, 2, Inf> gnorm (sparse ([1 2]), -1, "accum", "exact")
%!error id=gpudot:badOption gdot ([1 2], [3 4], "accum", "Exactly")
%!error id=gpudot:badOption gsearch (randn (4, 2), randn (4, 9), 2, "accum", "exact")
