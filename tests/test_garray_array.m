## garray as an array: indexing (made on the device where there is one), size queries,
## conversions, comparisons, display, gather of any value, Octave's reductions on garrays,
## clear errors for what needs host data; and the Octave-parity cases of gdot and gnorm.

%!shared x, g, A, B, subs1, subs2
%! warning ("off", "gpudot:noDevice");
%! x = single ([1 2 3 4 5]);
%! g = garray (x);
%! A = reshape (1:60, 3, 4, 5) + 0.5i;
%! B = garray (A);
%! subs1 = {1, 5, ":", 2:4, [5 1 3], [1; 2], logical([1 0 1 0 1]), zeros(1, 0), []};
%! subs1(end+1:end+3) = {ones(2, 2), true, logical([0 0 0 0 0])};
%! subs2 = {{":", 1}, {2, ":"}, {1:2, [4 1]}, {3, 4, 5}, {":", ":", 2}, {":", 7}};
%! subs2(end+1:end+4) = {{logical([1 0 1]), 2}, {2, 3:2}, {":"}, {[3 1], ":", [5 5]}};
%! subs2(end+1:end+4) = {{1, 1, 1, 1}, {5}, {[1 2; 3 4]}, {logical([1 0 1]), ":", 1}};

%!test
%! ## every subscript form gives the host's values, class and size, as a garray
%! for i = 1:numel (subs1)
%!   r = g(subs1{i});
%!   assert (isa (r, "garray"));
%!   assert (gather (r), x(subs1{i}));
%! endfor
%! for i = 1:numel (subs2)
%!   r = B(subs2{i}{:});
%!   assert (gather (r), A(subs2{i}{:}));
%! endfor
%! assert (gather (g(end)), x(end));
%! assert (gather (B(end, end, end)), A(end, end, end));
%! assert (gather (B(end)), A(end));
%! assert (gather (B(2, end)), A(2, end));
%! assert (gather (g(end-1:end)), x(end-1:end));
%! assert (gather (B(:)), A(:));

%!error <out of bound 5> g(6)
%!error id=Octave:invalid-index g(0)
%!error id=Octave:invalid-index g(-1)
%!error id=Octave:invalid-index g(1.5)
%!error id=Octave:invalid-index g(NaN)
%!error id=Octave:index-out-of-bounds g(6)
%!error <out of bound 3> B(4, 1)
%!error <out of bound 20> B(1, 21)
%!error <only \(\) indexing> g{1}
%!error <assignment into a garray> g(1) = 2

%!test
%! ## size queries, conversions, identity of contents
%! assert (length (g), 5);
%! assert (length (garray (zeros (3, 0))), 0);
%! assert (numel (B), ifelse (garray.numel_counts, 60, 1));
%! assert (size (B, 2), 4);
%! assert (size (B, [1 3]), [3 5]);
%! assert (size (B, 7), 1);
%! [r, c] = size (B);
%! assert ([r c], [3 20]);
%! [r, c, p, q] = size (B);
%! assert ([r c p q], [3 4 5 1]);
%! assert (ndims (B), 3);
%! assert (double (g), double (x));
%! assert (class (double (g)), "double");
%! assert (single (B), single (A));
%! assert (isequal (g, garray (x)));
%! assert (isequal (g, x));
%! assert (isequal (x, g));
%! assert (! isequal (g, garray (x + 1)));
%! assert (isa (g, "float") && isa (g, "numeric") && isa (g, "garray"));
%! assert (! isa (g, "integer"));
%! assert (isfloat (g) && isnumeric (g) && isvector (g) && ! isscalar (g));
%! assert (iscomplex (B) && ! isreal (B));
%! h = garray (g);
%! assert (gather (h), x);
%! assert (h.id != g.id);

%!test
%! ## gather: any value, several at once
%! assert (gather ([1 2 3]), [1 2 3]);
%! [a, b] = gather (g, "text");
%! assert (a, x);
%! assert (b, "text");

%!test
%! ## display: where the data lives, and the values of small arrays
%! s = evalc ("g");
%! assert (! isempty (strfind (s, "1x5 single garray on")));
%! assert (! isempty (strfind (s, "4")));
%! s = evalc ("disp (garray (zeros (100, 100)))");
%! assert (numel (strsplit (strtrim (s), "\n")), 1);

%!test
%! ## Octave's reductions on garrays: their values, class and size
%! M = garray (magic (4));
%! m = magic (4);
%! assert (dot (g, g), dot (x, x));
%! assert (class (dot (g, g)), "single");
%! assert (dot (M, M, 2), dot (m, m, 2));
%! assert (norm (g), norm (x), 4 * eps ("single"));
%! assert (norm (g, 1), norm (x, 1));
%! assert (norm (g, Inf), norm (x, Inf));
%! assert (norm (M, "fro"), norm (m, "fro"), -8 * eps);
%! assert (norm (M, 1), norm (m, 1));
%! assert (norm (M, Inf), norm (m, Inf));
%! assert (norm (M, 2, "rows"), norm (m, 2, "rows"), -8 * eps);
%! assert (norm (M, 2, "columns"), norm (m, 2, "columns"), -8 * eps);
%! assert (vecnorm (M), vecnorm (m), -8 * eps);
%! assert (vecnorm (M, 1, 2), vecnorm (m, 1, 2));
%! assert (sum (M), sum (m));
%! assert (sum (M, 2), sum (m, 2));
%! assert (sum (g), sum (x));
%! assert (class (sum (g)), "single");
%! assert (sum (garray ([])), sum ([]));
%! assert (sum (garray (zeros (0, 3))), sum (zeros (0, 3)));
%! assert (sum (B, 3), sum (A, 3));
%! try
%!   norm (M);
%!   error ("no error");
%! catch err
%!   assert (err.identifier, "gpudot:gatherFirst");
%! end_try_catch

%!test
%! ## vecnorm and norm's options where this release's functions have their own rules: NaN
%! ## at p = Inf (vecnorm skips it in Octave 7 to 10), empties (shapes differ by release),
%! ## arrays past 2-D (norm refuses them with "rows" or "columns")
%! m = [1 NaN -3; 2 2 2; NaN NaN NaN; -5 NaN 4];
%! for c = {@double, @single, @(v) complex (v, v .* (v > 0))}
%!   h = c{1} (m);
%!   G = garray (h);
%!   for d = {{}, {1}, {2}, {3}}
%!     assert (vecnorm (G, Inf, d{1}{:}), vecnorm (h, Inf, d{1}{:}), -2 * eps (class (h)));
%!     assert (vecnorm (G, 2, d{1}{:}), vecnorm (h, 2, d{1}{:}), -4 * eps (class (h)));
%!   endfor
%! endfor
%! for e = {zeros(0, 3), zeros(3, 0), [], zeros(1, 0), zeros(0, 1), zeros(0, 3, 2), single(zeros(1, 1, 0))}
%!   for a = {{}, {1}, {Inf}, {Inf, 1}, {2, 1}, {Inf, 2}, {1, 3}, {Inf, 3}}
%!     want = vecnorm (e{1}, a{1}{:});
%!     got = vecnorm (garray (e{1}), a{1}{:});
%!     assert (class (got), class (want));
%!     assert (size (got), size (want));
%!   endfor
%! endfor
%! A = garray (rand (2, 3, 2));
%! for o = {"rows", "columns", "cols"}
%!   try
%!     norm (A, 2, o{1});
%!     error ("no error");
%!   catch err
%!     assert (err.identifier, "gpudot:badDim");
%!   end_try_catch
%! endfor

%!test
%! ## everything else: one error naming gather
%! ops = {@() g + 1, @() 1 - g, @() g .* g, @() g * 2, @() g ./ 2, @() g .^ 2, @() -g, ...
%!        @() g == g, @() g < 1, @() g', @() g.', @() ! g, @() abs (g), @() horzcat (g, g), ...
%!        @() vertcat (g, g), @() cat (1, g, g)};
%! warning ("off", "gpudot:gatherFirst", "local");
%! for i = 1:numel (ops)
%!   try
%!     ops{i} ();
%!     error ("no error for %s", func2str (ops{i}));
%!   catch err
%!     assert (err.identifier, "gpudot:gatherFirst", func2str (ops{i}));
%!     assert (! isempty (strfind (err.message, "gather")));
%!   end_try_catch
%! endfor
%! ## [g g]: Octave reports its own "method failed"; the warning before it names gather
%! warning ("on", "gpudot:gatherFirst", "local");
%! lastwarn ("");
%! try
%!   x = [g g];
%! catch
%! end_try_catch
%! [msg, id] = lastwarn ();
%! assert (id, "gpudot:gatherFirst");
%! assert (! isempty (strfind (msg, "gather")));

%!test
%! ## save: Octave 7 refuses classdef objects; later releases save their properties as a
%! ## struct (no garray comes back: gather first to keep the data)
%! f = [tempname() ".mat"];
%! unwind_protect
%!   saved = true;
%!   try
%!     save ("-binary", f, "g");
%!   catch
%!     saved = false;
%!   end_try_catch
%!   if (saved)
%!     s = load (f);
%!     assert (! isa (s.g, "garray"));
%!   endif
%! unwind_protect_cleanup
%!   if (exist (f, "file"))
%!     unlink (f);
%!   endif
%! end_unwind_protect

%!testif ; gpudot_gpu_available ()
%! ## on the GPU: the selection is a new garray on the device (live garrays and bytes grow
%! ## by it), gathered bit for bit, every class and complexity
%! s0 = gpudot_info ();
%! for c = {"single", "double"}
%!   for cp = [false true]
%!     H = randn (3, 4, 5);      # the shape subs2 was written for
%!     if (cp)
%!       H = complex (H, randn (3, 4, 5));
%!     endif
%!     H = cast (H, c{1});
%!     G = garray (H);
%!     for i = 1:numel (subs2)
%!       r = G(subs2{i}{:});
%!       assert (isequal (gather (r), H(subs2{i}{:})));
%!       assert (class (gather (r)), c{1});
%!     endfor
%!     r = G(:, 2:4, [3 1]);
%!     s1 = gpudot_info ();
%!     assert (s1.garrays, s0.garrays + 2);
%!     assert (gdot (r, r), gdot (H(:, 2:4, [3 1]), H(:, 2:4, [3 1])), -1e-6);
%!   endfor
%! endfor

%!test
%! ## Octave parity of gdot and gnorm
%! assert (gnorm ([]), 0);
%! assert (gnorm (single ([])), single (0));
%! assert (gnorm (magic (3), "fro"), norm (magic (3), "fro"), 8 * eps);
%! assert (gnorm (magic (3), "FRO"), norm (magic (3), "fro"), 8 * eps);
%! assert (size (gnorm (magic (3), "fro", 1)), [1 3]);
%! assert (class (gdot (single ([1 2]), int8 ([1 2]))), class (dot (single ([1 2]), int8 ([1 2]))));
%! assert (gdot (single ([1 2]), int8 ([1 2])), 5);
%! assert (gdot (ones (2, 3), 2 * ones (2, 3), 100), dot (ones (2, 3), 2 * ones (2, 3), 100));
%! assert (gdot ([1 2], [3 4], 70), [3 8]);
%! assert (gdot ([1 2], [3 4], "accum", "NATIVE"), 11);
%! assert (gdot ([1 2], [3 4], "Accum", "Compensated", "DEVICE", "CPU"), 11);
%! assert (gnorm ([3 4], "Inf"), 4);

%!error <called with too many outputs> [a, b] = gnorm ([1 2])
%!error <called with too many outputs> [a, b] = gdot ([1 2], [3 4])
%!error <called with too many outputs> [a, b] = gcosine ([1 2], [3 4])
%!test
%! try
%!   [a, b] = gnorm ([1 2]);
%! catch err
%!   assert (err.identifier, "Octave:invalid-fun-call");
%! end_try_catch

%!test
%! ## integer operands, converted a piece (2^22 elements) at a time: the values of their
%! ## double conversion (exact sums), double results; long runs in pieces
%! e = @(u, v) max (abs (u(:) - v(:))) / max (1, max (abs (v(:))));
%! x = int16 (randi ([-300 300], 1000, 7));  y = randn (1000, 7);
%! assert (e (gdot (x, y), dot (double (x), y)) < 1e-12);   # (dot sums in another order)
%! assert (e (gdot (x, y, 2), dot (double (x), y, 2)) < 1e-12);
%! assert (class (gdot (x, single (y))), "double");
%! assert (e (gnorm (x), vecnorm (double (x))) < 1e-12);
%! assert (e (gcosine (x, y), gcosine (double (x), y)) < 1e-12);
%! v = int8 (randi ([-100 100], 2^22 + 5, 1));  w = int8 (randi ([-100 100], 2^22 + 5, 1));
%! assert (gdot (v, w), sum (double (v) .* double (w)));
%! assert (gdot (v, double (w), "accum", "compensated"), sum (double (v) .* double (w)));
%! assert (gnorm (v), sqrt (sum (double (v) .^ 2)), -2 * eps);
%! assert (gnorm (v, 1), sum (abs (double (v))));
%! assert (gnorm (v, Inf), max (abs (double (v))));
%! assert (gnorm (v, -Inf), min (abs (double (v))));
%! assert (gnorm (v, 0), nnz (v));
%! assert (gnorm (v, 3), gnorm (double (v), 3), -8 * eps);
%! assert (gcosine (v, w), gcosine (double (v), double (w)), -8 * eps);
%! assert (gdot (uint8 ([255 255]), uint8 ([255 1])), 255 * 256);
%!test
%! ## indexing narrows as Octave's does: a selection whose imaginary parts are all zero is
%! ## real, the complex array itself stays complex (and maxk orders it by magnitude)
%! C = complex ([1 -2; 3 4], [0 5; 0 6]);
%! gc = garray (C);
%! assert (isreal (gather (gc(:, 1))) && isreal (gc(:, 1)));
%! assert (gather (gc(:, 1)), [1; 3]);
%! assert (iscomplex (gc(:, 2)) && iscomplex (gc) && iscomplex (gather (gc)));
%! assert (maxk (gc(:, 1), 1), 3);
%! Z = complex ([3 -4 1], [0 0 0]);
%! gz = garray (Z);
%! assert (iscomplex (gather (gz)));
%! [b, i] = maxk (gz, 2);
%! assert (i, [2 1]);
%! assert (b, [-4 3]);
