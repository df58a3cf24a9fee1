## -*- texinfo -*-
## @deftypefn {} {[@var{x}, @var{y}, @var{xd}, @var{yd}, @var{n}, @var{u}] =} layout_data (@var{sz}, @var{cls}, @var{cplx})
## Test helper of test_shards and test_spread: random operands of size @var{sz} and class
## @var{cls} (complex where @var{cplx}), their double copies (vectors as columns), the
## length @var{n} of their runs and the unit roundoff @var{u} of the class.
## @end deftypefn

function [x, y, xd, yd, n, u] = layout_data (sz, cls, cplx)
  x = randn (sz);  y = randn (sz);
  if (cplx)
    x = complex (x, randn (sz));  y = complex (y, randn (sz));
  endif
  x = cast (x, cls);  y = cast (y, cls);
  xd = double (x);  yd = double (y);
  if (isvector (x))
    xd = xd(:);  yd = yd(:);
  endif
  n = rows (xd);
  u = ifelse (strcmp (cls, "single"), eps ("single"), eps);
endfunction
