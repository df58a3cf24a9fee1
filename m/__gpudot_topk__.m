## Copyright (C) 2026 gpudot developers
## SPDX-License-Identifier: GPL-3.0-or-later

## [v, i] = __gpudot_topk__ (x, k, dim, is_min): the best min (k, size (x, dim)) along dim of a
## host array, in maxk's order (is_min: mink's): by value, NaN after every number, equal
## values by the lowest index.  Real data: the CPU engine's partial selection; complex: a
## stable sort by magnitude, then argument (as max orders them), per run.
function [v, i] = __gpudot_topk__ (x, k, dim, is_min)
  if (isreal (x))
    [v, i] = __gpudot__ ("topk", x, k, dim, is_min);
    return;
  endif
  sz = size (x);
  sz(end+1:dim) = 1;
  n = sz(dim);
  kk = min (k, n);
  perm = [dim, 1:dim-1, dim+1:numel(sz)];
  xr = reshape (permute (x, perm), n, []);
  s = ifelse (is_min, 1, -1);
  ang = arg (xr);
  ang(ang == -pi) = pi;
  v = zeros (kk, columns (xr), class (x));
  v = complex (v);
  i = zeros (kk, columns (xr));
  for c = 1:columns (xr)
    nanc = isnan (xr(:, c));
    [~, ord] = sortrows ([nanc, s * abs(xr(:, c)), s * ang(:, c), (1:n)']);
    i(:, c) = ord(1:kk);
    v(:, c) = xr(ord(1:kk), c);
  endfor
  osz = sz(perm);
  osz(1) = kk;
  v = ipermute (reshape (v, osz), perm);
  i = ipermute (reshape (i, osz), perm);
endfunction
