## Copyright (C) 2026 gpudot developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {@var{c} =} gcosine (@var{x}, @var{y})
## @deftypefnx {} {@var{c} =} gcosine (@var{x}, @var{y}, @var{dim})
## @deftypefnx {} {@var{c} =} gcosine (@dots{}, @var{name}, @var{value})
## Cosine similarity @code{dot (x, y) / (norm (x) * norm (y))} along @var{dim}, in one
## pass that accumulates x.y, x.x and y.y together: on an NVIDIA GPU for garrays, on the
## CPU engine for host arrays.
##
## @example
## @group
## gcosine ([1 0], [1 1])                 # 0.7071
## D = garray (single (randn (768, 1e5)));  # embeddings, copied to the GPU once
## q = single (randn (768, 1));
## s = gcosine (q, D);                    # 1 x 1e5 similarities
## [~, best] = max (s);
## @end group
## @end example
##
## Shapes, classes and broadcasting follow @code{gdot}: two vectors give a scalar; the
## main use is one query vector against every column of a matrix,
## @code{gcosine (q, D)} with @var{q} n x 1 and @var{D} n x m.
##
## Scaled by powers of two as it runs, so huge and tiny vectors work:
## @code{gcosine ([1e200 0], [1e200 0])} is 1 and
## @code{gcosine (1e-300*[1 1], 1e-300*[1 -1])} is 0.
##
## Real results are clamped to [-1, 1]; complex inputs give
## @code{dot (x, y) / (norm (x) * norm (y))} (@var{x} conjugated, as @code{dot} does) with
## magnitude at most 1.  Sparse inputs are reduced from their nonzeros.  Clamping never
## turns NaN into a number: a zero vector gives NaN (as Octave's own formula does), and
## NaN or Inf elements give NaN.  No eps is added anywhere.
##
## Options @code{"accum"} and @code{"device"} as for @code{gdot}; with @code{"exact"} the
## three sums are exact and the cosine within one ulp of the true one, the same bits on
## every engine (garrays: summed on the GPU in one pass, 2.3x @code{"double"}'s time for
## 2^26 doubles on an H100, 3.9x for complex ones).
##
## Errors (identifiers): @code{gpudot:badType} (not a numeric array),
## @code{gpudot:sizeMismatch} (sizes neither equal nor compatible),
## @code{gpudot:badDim} (not a positive integer scalar), @code{gpudot:badOption},
## @code{gpudot:noDevice} (@code{"device", "gpu"} without a usable GPU),
## @code{gpudot:outOfMemory}, @code{gpudot:cuda} (other CUDA failures, with CUDA's
## text; after a kernel fault it says the GPU needs Octave restarted),
## @code{gpudot:interrupted} (Ctrl-C during a long call).
##
## @seealso{gdot, gnorm, garray, gather, dot, norm, gpudot_demo}
## @end deftypefn

function c = gcosine (x, y, varargin)

  ## Reached where the compiled entry gcosine.oct is not (it answers every call itself): the
  ## MEX parses the arguments as gcosine.oct does.
  if (nargin < 2)
    print_usage ();
  endif
  c = __gpudot__ ("__entry__", "gcosine", x, y, varargin{:});

endfunction

%!assert (gcosine ([1 0], [1 1]), 1 / sqrt (2), 4 * eps)
%!assert (gcosine ([1e200 0], [1e200 0]), 1)
%!assert (gcosine (1e-300 * [1 1], 1e-300 * [1 -1]), 0)
%!assert (isnan (gcosine ([0 0], [1 1])))
%!error <Invalid call> gcosine (1)

%!demo
%! ## Everyday use: the most similar columns to a query
%! D = single (randn (64, 1000));
%! q = D(:, 17) + 0.1 * single (randn (64, 1));
%! s = gcosine (q, garray (D));       # on the GPU where there is one
%! [v, k] = sort (s, "descend");
%! printf ("closest columns: %s (similarity %.3f)\n", mat2str (k(1:3)), v(1));
