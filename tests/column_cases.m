## -*- texinfo -*-
## @deftypefn {} {@var{cs} =} column_cases (@var{x}, @var{y}, @var{xd}, @var{yd}, @var{n}, @var{uu}, @var{acc})
## Test helper of test_shards and test_spread: the reductions along the first dimension
## that both run on every layout of devices, with references and bounds: gdot of x and y
## (y also on the host), of a matrix y and a query column of x on the host, gnorm with p
## = 2, 1, Inf, 3 and -Inf, and gcosine; in accumulation mode @var{acc}, whose unit is
## @var{uu}, over runs of @var{n}.  Fields: fn, a, b (empty: none), host_b (b stays on the
## host), args, ref, tol.
## @end deftypefn

function cs = column_cases (x, y, xd, yd, n, uu, acc)
  cs = struct ("fn", {}, "a", {}, "b", {}, "host_b", {}, "args", {}, "ref", {}, "tol", {});
  ref = sum (conj (xd) .* yd, 1);
  tol = 2 * n * uu * sum (abs (xd) .* abs (yd), 1) + realmin;
  cs(end+1) = one (@gdot, x, y, false, {"accum", acc}, ref, tol);
  cs(end+1) = one (@gdot, x, y, true, {"accum", acc}, ref, tol);
  if (! isvector (x))                  # a query beside a matrix (broadcast)
    q = x(:, 1);
    cs(end+1) = one (@gdot, y, q, true, {"accum", acc}, sum (conj (yd) .* double (q), 1),
                     2 * n * uu * sum (abs (double (q)) .* abs (yd), 1) + realmin);
  endif
  for p = {2, 1, Inf, 3, -Inf}
    if (p{1} == -Inf)
      refn = min (abs (xd), [], 1);
    else
      refn = vecnorm (xd, p{1}, 1);
    endif
    cs(end+1) = one (@gnorm, x, [], false, {p{1}, "accum", acc}, refn, 4 * n * uu * refn + realmin);
  endfor
  refc = ref ./ (vecnorm (xd, 2, 1) .* vecnorm (yd, 2, 1));
  cs(end+1) = one (@gcosine, x, y, false, {"accum", acc}, refc, 8 * n * uu + 0 * refc);
endfunction

function c = one (fn, a, b, host_b, args, ref, tol)
  c = struct ("fn", fn, "a", a, "b", b, "host_b", host_b, "args", {args}, "ref", ref, "tol", tol);
endfunction
