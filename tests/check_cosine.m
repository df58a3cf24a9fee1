## -*- texinfo -*-
## @deftypefn {} {} check_cosine (@var{x}, @var{y}, @var{dimargs}, @var{accum}, @var{device})
## Test helper: gcosine against ref_cosine.  By Cauchy-Schwarz the numerator's error is at
## most gamma_2n |x| |y|, so the absolute error of a cosine is about 2n u.
## @end deftypefn

function check_cosine (x, y, dimargs, accum, device, got)

  if (nargin < 6)            # GOT: a result computed already (the fuzzers)
    got = gcosine (x, y, dimargs{:}, "accum", accum, "device", device);
  endif
  assert (size (got), size (gdot (x, y, dimargs{:}, "device", "cpu")));
  single_out = isa (x, "single") || isa (y, "single");
  if (single_out)
    x = single (x);  y = single (y);
  endif
  if (isempty (dimargs) && isvector (x) && isvector (y) && numel (x) == numel (y))
    x = x(:);  y = y(:);
  endif
  dim = reduce_dim (size (x .* y), dimargs);
  if (isempty (got))
    return;                      # shapes checked against gdot above
  endif
  ref = ref_cosine (x, y, dim);
  n = size (x .* y, dim);
  assert (class (got), ifelse (single_out, "single", "double"));
  u = ifelse (single_out && strcmp (accum, "native"), 2^-24, 2^-53);
  tol = (4 * n + 16) * u + single_out * 2^-23;
  got0 = got;                    # the range check measures in the result's own class
  got = reshape (double (got), size (ref));
  err = abs (got - ref);
  ok = err <= tol | (isnan (ref) & isnan (got));
  if (! all (ok(:)))
    k = find (! ok, 1);
    error ("check_cosine: %s/%s mismatch at %d: got %.17g%+.17gi, ref %.17g%+.17gi, tol %g",
           accum, device, k, real (got(k)), imag (got(k)), real (ref(k)), imag (ref(k)), tol);
  endif
  v = got0(! isnan (got0));
  if (isreal (got0))
    assert (all (v <= 1 & v >= -1));
  else
    assert (all (abs (v) <= 1));
  endif

endfunction
