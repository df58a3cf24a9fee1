## -*- texinfo -*-
## @deftypefn {} {[@var{uu}, @var{tol}] =} layout_tol (@var{acc}, @var{u}, @var{n}, @var{mag})
## Test helper of test_shards and test_spread: the unit @var{uu} of accumulation mode
## @var{acc} for data of unit roundoff @var{u}, and the bound @var{tol} on a sum of @var{n}
## terms whose magnitudes sum to @var{mag}.
## @end deftypefn

function [uu, tol] = layout_tol (acc, u, n, mag)
  uu = ifelse (strcmp (acc, "native"), u, ifelse (strcmp (acc, "double"), eps, 2 * eps ^ 2)) + u;
  tol = 2 * n * uu * mag + realmin;
endfunction
