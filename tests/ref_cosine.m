## -*- texinfo -*-
## @deftypefn {} {@var{c} =} ref_cosine (@var{x}, @var{y}, @var{dim})
## Test reference: conj(x).y / (|x| |y|) along @var{dim} in double, x and y first scaled by
## their largest magnitudes (so nothing overflows or underflows), then clamped to
## [-1, 1] (magnitude 1 for complex).  NaN for zero vectors and for NaN or Inf elements.
## @end deftypefn

function c = ref_cosine (x, y, dim)

  x = double (x);  y = double (y);
  sz = size (x .* y);
  x = x .* ones (sz);  y = y .* ones (sz);     # broadcast both to the common size
  mx = max (abs (x), [], dim);  mx(mx == 0 | ! isfinite (mx)) = 1;
  my = max (abs (y), [], dim);  my(my == 0 | ! isfinite (my)) = 1;
  xs = x ./ mx;  ys = y ./ my;
  c = sum (conj (xs) .* ys, dim) ./ (sqrt (sum (abs (xs) .^ 2, dim)) .* sqrt (sum (abs (ys) .^ 2, dim)));
  bad = any (! isfinite (x), dim) | any (! isfinite (y), dim);
  c(bad) = NaN;
  big = abs (c) > 1;
  c(big) = c(big) ./ abs (c(big));
  if (isreal (c))
    c = max (min (c, 1), -1) + 0 * c;     # NaN stays NaN
  endif

endfunction
