## Sparse operands: reduced from their nonzeros (memory O(nnz)), with dot's, vecnorm's and
## norm's values, a full double result.

%!shared S, T, F, Sc, e
%! rand ("seed", 41);  randn ("seed", 41);
%! S = sprandn (60, 7, 0.2);  T = sprandn (60, 7, 0.3);  F = randn (60, 7);
%! Sc = S + 1i * sprandn (60, 7, 0.2);
%! e = @(a, b) max (abs (a(:) - b(:))) / max (1, max (abs (b(:))));

%!test
%! ## gdot: both sparse, sparse and full either way, complex, DIM 2, vectors in any orientation
%! cases = {{S, T}, {S, F}, {F, S}, {Sc, T}, {F, Sc}, {Sc, F}, {S(:, 1), T(:, 1)}, ...
%!          {S(:, 2)', T(:, 2)}, {S(:, 3)', F(:, 3)'}};
%! for i = 1:numel (cases)
%!   [x, y] = cases{i}{:};
%!   d = gdot (x, y);
%!   assert (! issparse (d) && isa (d, "double"));
%!   m = full (dot (abs (x), abs (y)));     # (the sums' error bound: eps times it)
%!   assert (max (abs (d(:) - full (dot (x, y))(:))) / max (1, max (m(:))) < 4 * eps, ...
%!           sprintf ("case %d", i));
%!   assert (size (d), size (full (dot (x, y))));
%! endfor
%! assert (e (gdot (S, T, 2), full (dot (S, T, 2))) < 4 * eps);
%! assert (size (gdot (S, T, 2)), [60 1]);
%! assert (e (gdot (S, T, "accum", "compensated"), full (dot (S, T))) < 4 * eps);
%! assert (gdot (sparse ([1e20 1 -1e20]), [1 1 1], "accum", "compensated"), 1);

%!test
%! ## gnorm: every p, along either dimension, "fro", complex
%! for p = {2, 1, Inf, -Inf, 3, 0, -1, 0.5}
%!   for d = 1:2
%!     r = gnorm (S, p{1}, d);
%!     assert (! issparse (r));
%!     assert (e (r, gnorm (full (S), p{1}, d)) < 8 * eps, sprintf ("p = %g, dim %d", p{1}, d));
%!   endfor
%! endfor
%! assert (e (gnorm (S), vecnorm (full (S))) < 4 * eps);
%! assert (e (gnorm (S, "fro"), norm (S, "fro")) < 4 * eps);
%! assert (e (gnorm (Sc), vecnorm (full (Sc))) < 4 * eps);
%! assert (gnorm (sparse ([1e300 1e300])), norm ([1e300 1e300]), -4 * eps);
%! assert (gnorm (sparse ([0 2 0]), -Inf), 0);
%! assert (gnorm (sparse ([3 2 5]), -Inf), 2);

%!test
%! ## gcosine: both sparse, with a full one, complex, scaled where squares overflow
%! ref = @(x, y) full (dot (x, y)) ./ (vecnorm (full (x)) .* vecnorm (full (y)));
%! assert (e (gcosine (S, T), ref (S, T)) < 8 * eps);
%! assert (e (gcosine (S, F), ref (S, F)) < 8 * eps);
%! assert (e (gcosine (F, S), ref (F, S)) < 8 * eps);
%! assert (e (gcosine (Sc, F), gcosine (full (Sc), F)) < 8 * eps);
%! assert (gcosine (sparse ([1e200 0 1e200]), [1e200 1 1e200]), 1, -8 * eps);

%!test
%! ## memory O(nnz): a 1e5 x 1e5 matrix would take 80 GB full
%! A = sprandn (1e5, 1e5, 1e-4);  B = sprandn (1e5, 1e5, 1e-4);
%! assert (e (gnorm (A), sqrt (full (sum (A .^ 2)))) < 4 * eps);
%! assert (e (gdot (A, B), full (sum (A .* B))) < 4 * eps);
%! assert (size (gcosine (A, B)), [1 1e5]);
