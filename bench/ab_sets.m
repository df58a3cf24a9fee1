## [X, Y] = ab_sets (n, S, cls): S input sets of fresh random n-vectors of class CLS (the
## A/B scripts take them in turn, so that sizes under the caches do not measure the caches).
function [X, Y] = ab_sets (n, S, cls)
  X = cell (S, 1);  Y = X;
  for s = 1:S
    X{s} = cast (randn (n, 1), cls);  Y{s} = cast (randn (n, 1), cls);
  endfor
endfunction
