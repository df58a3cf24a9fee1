## -*- texinfo -*-
## @deftypefn {} {[@var{r}, @var{n}] =} ref_norm (@var{x}, @var{p}, @var{dim})
## Test reference: the vector p-norm of @var{x} along @var{dim}, in double, scaled by the
## largest (p > 0) or smallest (p < 0) magnitude so that it neither overflows nor
## underflows; @var{n} is the number of terms per norm.
## @end deftypefn

function [r, n] = ref_norm (x, p, dim)

  ## where every element is tiny, scale up by a power of two first, so that abs () of
  ## complex values does not round on the subnormal grid (exact: only exponents change)
  x = double (x);
  m = max (abs ([real(x(:)); imag(x(:))]));
  k = 0;
  if (! isempty (m) && m > 0 && m < 2^-900)  # all tiny: scaling up is exact
    [~, k] = log2 (m);
  endif
  a = abs ((x * 2^fix (-k/2)) * 2^(-k - fix (-k/2)));   # two exact steps: 2^-k overflows
  n = size (a, dim);
  if (ischar (p))
    p = ifelse (strcmp (p, "fro"), 2, ifelse (strcmp (p, "-inf"), -Inf, Inf));
  endif
  if (isempty (a))              # norm () of an empty vector is 0 for every p
    sz = size (a);  sz(end+1:dim) = 1;  sz(dim) = 1;
    r = zeros (sz);
    return;
  endif
  if (p == Inf)
    r = max (a, [], dim);
    r(any (isnan (a), dim)) = NaN;
  elseif (p == -Inf)
    r = min (a, [], dim);
    r(any (isnan (a), dim)) = NaN;
  elseif (p == 0)
    r = sum (a != 0, dim);
  elseif (p > 0)
    m = max (a, [], dim);
    s = m;  s(s == 0 | ! isfinite (s)) = 1;
    r = m .* sum ((a ./ s) .^ p, dim) .^ (1 / p);
    r(m == 0) = 0;
    r(any (isinf (a), dim)) = Inf;
    r(any (isnan (a), dim)) = NaN;
    if (p == 2)                 # norm's 2-norm: NaN where a part is NaN (Inf + NaN i too)
      r(any (isnan (x), dim)) = NaN;
    endif
  else
    m = min (a, [], dim);
    s = m;  s(s == 0 | ! isfinite (s)) = 1;
    r = m .* sum ((a ./ s) .^ p, dim) .^ (1 / p);
    r(m == 0) = 0;
    r(all (isinf (a), dim)) = Inf;
    r(any (isnan (a), dim)) = NaN;
  endif
  if (p != 0)
    r = (r * 2^fix (k/2)) * 2^(k - fix (k/2));
  endif

endfunction
