## -*- texinfo -*-
## @deftypefn {} {} check_norm (@var{x}, @var{p}, @var{dimargs}, @var{accum}, @var{device})
## Test helper: gnorm against ref_norm within the accumulate mode's error bound, with
## vecnorm's size and the input's class.
## @end deftypefn

function check_norm (x, p, dimargs, accum, device, got)

  if (nargin < 6)            # GOT: a result computed already (the fuzzers)
    got = gnorm (x, p, dimargs{:}, "accum", accum, "device", device);
  endif
  if (ischar (p) && strcmpi (p, "fro") && isempty (dimargs))
    x = x(:);                    # norm (A, "fro"): all of A's elements
  endif
  if (isempty (dimargs) && isequal (size (x), [0 0]))
    x = zeros (0, 1, class (x)); # norm ([]) and vecnorm ([]) are 0
  endif
  dim = reduce_dim (size (x), dimargs);
  [ref, n] = ref_norm (x, p, dim);
  if (dim > ndims (x))
    n = 1;
  endif
  assert (size (got), size (ref));
  assert (class (got), ifelse (isa (x, "single"), "single", "double"));
  ## Relative error bounds: each term |x|^p carries a few ulps (pow, hypot), the sum
  ## gamma_n, the root one more; "native" single accumulates in single.
  if (isa (x, "single") && strcmp (accum, "native"))
    u = 2^-24;
  else
    u = 2^-53;
  endif
  rtol = (n + 8) * u * (1 + abs (double (ifelse (isnumeric (p), p, 2)))) + 2 * 2^-24 * isa (x, "single");
  ## results in the subnormal range are exact only to their grid: half an ulp there
  atol = 2 * ifelse (isa (x, "single"), double (realmin ("single")) * 2^-23, realmin * 2^-52);
  atol += abs (double (cast (ref, class (got))) - ref);   # rounding to the output class
  ## a complex element's modulus is rounded to that grid too (half an ulp there each: a
  ## 1-norm of 8197 subnormal ones differed from the scaled reference by 23 ulps, as
  ## Octave's norm and sum (abs (x)) do)
  if (iscomplex (x) && isnumeric (p) && p >= 1)
    atol += n * ifelse (isa (x, "single"), 2^-149, 2^-1074) / 2;
  endif
  err = abs (double (got) - ref);
  ok = err <= rtol .* abs (ref) + atol | (isnan (ref) & isnan (got)) | (ref == got);
  if (! all (ok(:)))
    k = find (! ok, 1);
    error ("check_norm: p=%s %s/%s mismatch at %d: got %.17g, ref %.17g, rtol %g",
           num2str (p), accum, device, k, got(k), ref(k), rtol);
  endif

endfunction
