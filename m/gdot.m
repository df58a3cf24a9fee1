## Copyright (C) 2026 gpudot developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {@var{d} =} gdot (@var{x}, @var{y})
## @deftypefnx {} {@var{d} =} gdot (@var{x}, @var{y}, @var{dim})
## @deftypefnx {} {@var{d} =} gdot (@dots{}, @var{name}, @var{value})
## Dot product of @var{x} and @var{y} on an NVIDIA GPU, with the semantics of
## Octave's @code{dot}.
##
## Two vectors of equal length, in any orientation, give a scalar.  Matrices and
## N-D arrays are reduced along the first non-singleton dimension, or along
## @var{dim}; a @var{dim} larger than @code{ndims} gives @code{conj (@var{x}) .* @var{y}}.
## The first argument is conjugated.  The result is single if either input is
## single, else double; real/complex mixes are allowed.
##
## Beyond @code{dot}: where the sizes differ but are compatible under Octave's
## broadcasting, the result is @code{sum (conj (@var{x}) .* @var{y}, @var{dim})},
## e.g. a column vector against every column of a matrix.  Integer inputs are
## converted to double, so their product sums are exact (up to 2^53), where
## @code{dot} saturates.  Sparse inputs are made full and give @code{dot}'s values.
##
## Options, as name/value pairs:
## @table @code
## @item "accum"
## @code{"double"} (default): accumulate in double; the products of single inputs are
## exact in double, so single results are correctly rounded for all but
## ill-conditioned sums.  @code{"native"}: accumulate in the input precision (what
## @code{dot} does; fastest, least accurate).  @code{"compensated"}: the Ogita-Rump-Oishi
## Dot2 algorithm in double with fused multiply-adds: as accurate as if computed in
## twice the working precision, then rounded.
## @item "kernel"
## Teaching: one dot product of two real vectors on the GPU with one kernel of the
## reduction ladder, each adding one idea (cuda/ladder_kernels.cuh has the code):
## @code{"atomic"} (one thread per element, each @code{atomicAdd}-ing its product into
## one result: independent threads; cost: n atomics serialised on one address),
## @code{"shared"} (a tree in shared memory per block, block sums added on the host:
## cooperation within a block; cost: a barrier per level and a second pass on the host),
## @code{"shuffle"} (a grid-stride loop summing in registers, warp shuffles, one atomic
## per warp: registers instead of shared memory; cost: atomics make the last bits vary),
## @code{"vector"} (the same with 16-byte loads: fewer, wider memory instructions; cost:
## a scalar tail), @code{"fused"} (the production kernel, used by default: two phases in
## one launch, the last block adding the blocks' sums in a fixed order; no float atomics,
## no host pass, bitwise repeatable).  Host operands are copied the textbook way
## (@code{cudaMalloc} and @code{cudaMemcpy} on every call).  @code{[d, ms] = gdot (@dots{})}
## also returns the kernels' GPU time in milliseconds (CUDA events).  Takes
## @code{"accum"} @code{"native"} or @code{"double"}, no @var{dim}; needs a GPU.
## @item "device"
## @code{"auto"} (default): the engine that answers first.  For arrays in host memory
## that is the CPU engine at every size measured (see the README: copying host data to
## the GPU costs more than the CPU engine's whole reduction); without a usable GPU it is
## the CPU engine, with one @code{gpudot:noDevice} warning per session.
## @code{"gpu"}: the GPU, or a @code{gpudot:noDevice} error.
## @code{"cpu"}: the CPU engine.
## @end table
##
## Results are bitwise identical from run to run for the same input, engine and
## device: the reduction order is fixed and no floating-point atomics are used.
##
## Errors (identifiers): @code{gpudot:badType} (not a numeric array: logical, char,
## cell, struct, function handle, object), @code{gpudot:sizeMismatch},
## @code{gpudot:badDim} (not a positive integer scalar), @code{gpudot:badOption},
## @code{gpudot:noDevice} (@code{"device", "gpu"} without a usable GPU),
## @code{gpudot:outOfMemory}, @code{gpudot:cuda} (other CUDA failures, with CUDA's
## error text; after a kernel fault the CUDA context is lost for the process, and this
## and later GPU calls say that the GPU needs Octave restarted, while @code{"auto"}
## goes on with the CPU engine), @code{gpudot:interrupted} (Ctrl-C during a long call;
## the next call works).
##
## Example:
## @example
## @group
## x = single (rand (1e7, 1));  y = single (rand (1e7, 1));
## d = gdot (x, y)                       # single, accumulated in double
## d = gdot (x, y, "accum", "native")    # as dot does
## D = gdot (ones (3, 1), magic (3))     # a vector against each column
## @end group
## @end example
##
## @seealso{dot, gpudot_info, gpudot_gpu_available}
## @end deftypefn

function [d, ms] = gdot (x, y, varargin)

  ## Reached where the compiled entry gdot.oct is not (it answers every call itself): the
  ## MEX parses the arguments as gdot.oct does.
  if (nargin < 2)
    print_usage ();
  endif
  if (nargout > 1)
    [d, ms] = __gpudot__ ("__entry__", "gdot", x, y, varargin{:});
  else
    d = __gpudot__ ("__entry__", "gdot", x, y, varargin{:});
  endif

endfunction

%!assert (gdot ([1 2 3], [4 5 6]), 32)
%!assert (gdot ([1 2 3], [4; 5; 6]), 32)
%!assert (gdot ([1 2; 3 4], [1 2; 3 4]), [10 20])
%!assert (gdot ([1 2; 3 4], [1 2; 3 4], 2), [5; 25])
%!assert (gdot ([1i 2], [1i 2]), 5)
%!assert (class (gdot (single ([1 2]), [1 2])), "single")
%!assert (gdot (int8 ([100 100]), int8 ([100 1])), 10100)
%!assert (gdot (ones (3, 1), magic (3)), sum (magic (3)))
%!error <Invalid call> gdot (1)
%!error id=gpudot:badType gdot ({1}, 1)
%!error id=gpudot:badOption gdot (1, 1, "accum")
%!error id=gpudot:badOption gdot (1, 1, "kernel", "bogus")
%!error id=gpudot:badOption gdot ([1 2], [3 4], "kernel", "shared", "device", "cpu")
%!error id=gpudot:badOption gnorm ([1 2], "kernel", "shared")

%!demo
%! ## The reduction ladder: each GPU kernel of gdot's "kernel" option against Octave's dot
%! ## (table, and a PNG in tempdir ()); CPU engine only without a GPU
%! gpudot_demo ("ladder");

%!demo
%! ## Accuracy of "native", "double" and "compensated" against Octave's dot
%! gpudot_demo ("accuracy");
