## -*- texinfo -*-
## @deftypefn {} {} check_dot (@var{x}, @var{y}, @var{dimargs}, @var{accum}, @var{device}, @var{exact})
## Test helper: gdot (@var{x}, @var{y}, @var{dimargs}@{:@}, "accum", @var{accum},
## "device", @var{device}) must have dot's class and size and match a double-precision
## reference within the accumulate mode's error bound (or exactly, when @var{exact}:
## integer-valued data whose sums are representable).
## @end deftypefn

function check_dot (x, y, dimargs, accum, device, exact, got)

  if (nargin < 7)            # GOT: a result computed already (the fuzzers)
    got = gdot (x, y, dimargs{:}, "accum", accum, "device", device);
  endif

  ## shape and class: dot's where dot is defined, else sum (conj (x) .* y, dim)
  single_out = isa (x, "single") || isa (y, "single");
  xs = x;  ys = y;
  if (single_out)          # dot rounds a double operand to single first
    xs = single (x);  ys = single (y);
  endif
  xd = double (xs);  yd = double (ys);
  if (isempty (dimargs) && isvector (x) && isvector (y) && numel (x) == numel (y))
    xd = xd(:);  yd = yd(:);
  endif
  dim = reduce_dim (size (xd .* yd), dimargs);
  ref = sum (conj (xd) .* yd, dim);
  ## |re| + |im| of each factor, NaN parts as 0: bounds the finite terms of either part of
  ## the result, where a NaN elsewhere in the element makes only its own part NaN
  terms = abs_parts (xd) .* abs_parts (yd);
  terms(isnan (terms)) = 0;            # 0 * Inf: that part is NaN in both
  mag = sum (terms, dim);
  if (isequal (size (x), size (y)) || (isempty (dimargs) && isvector (x) && isvector (y)
                                       && numel (x) == numel (y)))
    want = dot (xs, ys, dimargs{:});
    assert (size (got), size (want));
  else                           # sum's size rule, without its special case for 0x0
    sz = size (xd .* yd);
    sz(end+1:dim) = 1;
    sz(dim) = 1;
    assert (size (got), size (zeros (sz)));
  endif
  if (isempty (got))
    return;
  endif
  ref = reshape (ref, size (got));
  mag = reshape (mag, size (got));
  assert (class (got), ifelse (single_out, "single", "double"));

  n = size (xd .* yd, dim);
  if (dim > ndims (xd .* yd))
    n = 1;
  endif
  ## Error bounds (Higham, ch. 3): recursive or pairwise summation of n complex terms
  ## stays within gamma_{2n+2} * sum |x||y|; the reference (double, plain) within
  ## gamma_{2n} in double.  Rounding the result to single adds u_s |ref|.
  us = 2^-24;  ud = 2^-53;
  refb = (2 * n + 2) * ud * mag;
  ## tol = tmag + urel |ref part|; sums that run through the subnormal range round on its
  ## grid, an absolute error of half its spacing an operation
  if (exact)
    tmag = zeros (size (ref));  urel = 0;
  elseif (single_out && strcmp (accum, "native"))
    tmag = (2 * n + 2) * us * mag + refb + (2 * n + 2) * 2^-150;  urel = 0;
  elseif (single_out)
    tmag = 2 * refb + (2 * n + 2) * 2^-1074 / 2;  urel = us;   # (2^-1075 itself is 0)
  else
    tmag = 2 * refb + (2 * n + 2) * 2^-1074 / 2;  urel = ud;
  endif
  ## plus the rounding of the exact result to the output class (which may overflow to Inf
  ## or underflow to 0 in single); equal infinities agree.  Real and imaginary parts are
  ## held to the bound apart, so that a NaN or infinite part leaves the other's intact.
  bad = (part_bad (real (double (got)), real (ref), tmag, urel, class (got))
         | part_bad (imag (double (got)), imag (ref), tmag, urel, class (got)));
  ## known divergences, both non-finite: where one part of the reference is Inf or NaN, the
  ## other part may be NaN too (a complex operand's explicit zero part times Inf, which
  ## Octave's narrowing of all-real complex arrays hides), and compensated sums turn an Inf
  ## part into NaN
  nfref = ! isfinite (real (ref)) | ! isfinite (imag (ref));
  bad &= ! (nfref & (isnan (real (got)) | isnan (imag (got)))
            & (isnan (real (got)) | real (got) == real (ref))
            & (isnan (imag (got)) | imag (got) == imag (ref)));
  ## "native" single sums overflow where a product or partial sum passes realmax in single
  ## (as dot's): any non-finite result is float arithmetic's answer there
  if (single_out && strcmp (accum, "native"))
    big = reshape (max_term (terms, dim), size (got)) > double (realmax ("single")) / n;
    bad &= ! (big & ! isfinite (double (got)));
  endif
  if (strcmp (accum, "compensated"))
    bad &= ! ((isnan (real (got)) & isinf (real (ref))) | (isnan (imag (got)) & isinf (imag (ref))));
  endif
  ## products that overflow and cancel: the plain reference's NaN (Inf - Inf) against the
  ## exact sum's rounding, +-Inf, which the GPU's order can give; the sum of the operands
  ## scaled by 2^-600 each tells the exact sum's sign
  if (any (bad(:)))
    sc = reshape (sum (conj (xd * 2^-600) .* (yd * 2^-600), dim), size (got));
    refs = sc * 2^600 * 2^600;
    ## "exact" gives the finite sum itself where it is one: held to the scaled reference
    magsc = reshape (sum (abs_parts (xd * 2^-600) .* abs_parts (yd * 2^-600), dim), size (got));
    for part = {@real, @imag}
      g = part{1} (double (got));  rr = part{1} (ref);  rs = part{1} (refs);
      bad &= ! (isnan (rr) & isinf (rs) & g == rs);
      if (strcmp (accum, "exact"))
        bad &= ! (isnan (rr) & isfinite (g)
                  & abs (g * 2^-600 * 2^-600 - part{1} (sc)) <= (2 * n + 2) * ud * magsc + 2^-1074);
      endif
    endfor
  endif
  tol = tmag + urel * abs (ref);
  if (any (bad(:)))
    k = find (bad, 1);
    error ("check_dot: %s/%s mismatch at %d: got %.17g%+.17gi, ref %.17g%+.17gi, tol %g",
           accum, device, k, real (got(k)), imag (got(k)), real (ref(k)), imag (ref(k)),
           tol(k));
  endif

endfunction

function bad = part_bad (g, r, tmag, urel, cls)
  cast_err = abs (double (cast (r, cls)) - r);
  cast_err(isnan (cast_err)) = 0;
  tol = tmag + urel * abs (r);
  bad = ! (abs (g - r) <= tol + cast_err) & ! (isnan (r) & isnan (g)) & ! (g == r);
endfunction

## the largest of the terms' magnitudes along dim (0 where there are none)
function m = max_term (t, dim)
  if (isempty (t))               # no terms: nothing overflows
    sz = size (t);
    sz(end+1:dim) = 1;
    sz(dim) = 1;
    m = zeros (sz);
  else
    m = max (t, [], dim);
  endif
endfunction
