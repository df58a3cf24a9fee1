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
  mag = sum (abs (xd) .* abs (yd), dim);
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
  if (exact)
    tol = zeros (size (ref));
  elseif (single_out && strcmp (accum, "native"))
    tol = (2 * n + 2) * us * mag + refb;
  elseif (single_out)
    tol = us * abs (ref) + 2 * refb;
  else
    tol = 2 * refb + ud * abs (ref);
  endif
  ## plus the rounding of the exact result to the output class (which may overflow to Inf
  ## or underflow to 0 in single); equal infinities agree
  tol += abs (double (cast (ref, class (got))) - ref);
  err = abs (double (got) - ref);
  bad = ! (err <= tol) & ! (isnan (ref) & isnan (double (got))) & ! (double (got) == ref);
  if (any (bad(:)))
    k = find (bad, 1);
    error ("check_dot: %s/%s mismatch at %d: got %.17g%+.17gi, ref %.17g%+.17gi, tol %g",
           accum, device, k, real (got(k)), imag (got(k)), real (ref(k)), imag (ref(k)),
           tol(k));
  endif

endfunction
