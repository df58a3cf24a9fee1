## Copyright (C) 2026 gpudot developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{L}, @var{sz}] =} __garray_index__ (@var{dims}, @var{subs})
## Internal: the 1-based linear indices @var{L} (a column) and the size @var{sz} of
## @code{A(@var{subs}@{:@})} for an array @var{A} of size @var{dims}, by Octave's rules:
## ranges, colons, logical masks, one subscript or several (the last one spanning the
## dimensions after it).  Errors as Octave's indexing gives them.
## @end deftypefn

function [L, sz] = __garray_index__ (dims, subs)

  n = numel (subs);
  if (n == 0)
    L = (1:prod (dims))';
    sz = dims;
    return;
  endif
  if (n == 1)
    ## one subscript: linear indexing
    i = subs{1};
    total = prod (dims);
    if (ischar (i) && strcmp (i, ":"))
      L = (1:total)';
      sz = [total 1];
      return;
    endif
    i = check_subscript (i, total, 1, 1, dims);
    sz = size (i);
    ## a vector (one dimension not 1, of any position) indexed by a vector keeps its shape
    isvec = sum (dims != 1) == 1 && total != 1;
    if (isvec && isvector (i))
      sz = dims;
      sz(dims != 1) = numel (i);
    endif
    L = i(:);
    return;
  endif
  ## several subscripts: the last spans the remaining dimensions
  d = dims;
  if (numel (d) < n)
    d(end+1:n) = 1;
  elseif (numel (d) > n)
    d = [d(1:n-1) prod(d(n:end))];
  endif
  ## as Octave: every subscript's validity first, then the bounds
  for k = 1:n
    if (! (ischar (subs{k}) && strcmp (subs{k}, ":")))
      check_subscript (subs{k}, Inf, k, n, dims);
    endif
  endfor
  L = 1;
  stride = 1;
  sz = zeros (1, n);
  for k = 1:n
    i = subs{k};
    if (ischar (i) && strcmp (i, ":"))
      i = 1:d(k);
    else
      i = check_subscript (i, d(k), k, n, dims);
    endif
    sz(k) = numel (i);
    L = L(:) + stride * (reshape (i, 1, []) - 1);
    stride *= d(k);
  endfor
  L = L(:);

endfunction

## Octave's own identifiers and messages: Octave:invalid-index for what is not a subscript
## (0, negative, fractional, NaN), Octave:index-out-of-bounds past the end
function i = check_subscript (i, bound, k, n, dims)
  if (islogical (i))
    if (numel (i) > bound && any (i(bound+1:end)))
      out_of_bound (pos (n, k, find (i, 1, "last")), bound, dims);
    endif
    i = find (i);
    return;
  endif
  if (! ((isnumeric (i) || ischar (i)) && isreal (i)))
    error ("Octave:invalid-index", "index (%s): subscripts must be either integers 1 to (2^63)-1 or logicals",
           pos (n, k, "_"));
  endif
  i = double (i);
  bad = ! (i >= 1 & i == fix (i));
  if (any (bad(:)))
    v = i(find (bad, 1));
    error ("Octave:invalid-index",
           "index (%s): subscripts must be either integers 1 to (2^63)-1 or logicals",
           pos (n, k, v));
  endif
  if (any (i(:) > bound))
    out_of_bound (pos (n, k, max (i(:))), bound, dims);
  endif
endfunction

function out_of_bound (where, bound, dims)
  error ("Octave:index-out-of-bounds", "index (%s): out of bound %d (dimensions are %s)",
         where, bound, strjoin (arrayfun (@num2str, dims, "uniformoutput", false), "x"));
endfunction

function s = pos (n, k, v)
  c = repmat ({"_"}, 1, n);
  if (ischar (v))
    c{k} = v;
  else
    c{k} = num2str (v);
  endif
  s = strjoin (c, ",");
endfunction
