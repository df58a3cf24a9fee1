## [v, i] = ref_topk (x, k, dim, is_min): maxk's answer (is_min: mink's) from Octave's own
## sort, for tests: by value (complex: magnitude, then argument with -pi as pi), NaN after
## every number, equal values by the lowest index (a stable sort).
function [v, i] = ref_topk (x, k, dim, is_min)
  sz = size (x);
  sz(end+1:dim) = 1;
  n = sz(dim);
  perm = [dim, 1:dim-1, dim+1:numel(sz)];
  xr = reshape (permute (x, perm), n, []);
  s = ifelse (is_min, 1, -1);
  cx = iscomplex (x);   # (a column of zero imaginary parts may narrow to real below)
  kk = min (k, n);
  if (cx)
    i = zeros (kk, columns (xr));
    for c = 1:columns (xr)
      col = xr(:, c);
      ang = arg (col);
      ang(ang == -pi) = pi;
      [~, ord] = sortrows ([isnan(col), s * abs(col), s * ang, (1:n)']);
      i(:, c) = ord(1:kk);
    endfor
  else
    [~, ord] = sort (s * double (xr), 1);   # stable; NaN last; -0 and 0 equal
    i = ord(1:kk, :);
  endif
  v = xr(sub2ind (size (xr), i, repmat (1:columns (xr), kk, 1)));
  if (isempty (v))
    v = zeros (kk, columns (xr), class (x));
    if (iscomplex (x))
      v = complex (v);
    endif
  endif
  osz = sz(perm);
  osz(1) = kk;
  v = ipermute (reshape (v, osz), perm);
  i = ipermute (reshape (i, osz), perm);
endfunction
