## Copyright (C) 2026 gpudot developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {@var{d} =} gdot (@var{x}, @var{y})
## @deftypefnx {} {@var{d} =} gdot (@var{x}, @var{y}, @var{dim})
## @deftypefnx {} {@var{d} =} gdot (@dots{}, @var{name}, @var{value})
## @deftypefnx {} {[@var{d}, @var{ms}] =} gdot (@var{x}, @var{y}, "kernel", @var{k})
## Dot product of @var{x} and @var{y} as Octave's @code{dot} computes it, more accurately:
## on an NVIDIA GPU for data kept there (@code{garray}), on a multi-threaded CPU engine for
## arrays in host memory.
##
## @example
## @group
## d = gdot ([1 2 3], [4 5 6])              # 32
## x = single (rand (1e7, 1));  y = single (rand (1e7, 1));
## d = gdot (x, y)                          # single, summed in double
## G = garray (x);  H = garray (y);         # copied to the GPU once
## d = gdot (G, H)                          # reduced on the GPU
## D = gdot (ones (3, 1), magic (3))        # a vector against each column: [15 15 15]
## @end group
## @end example
##
## Two vectors of equal length, in any orientation, give a scalar.  Matrices and N-D
## arrays are reduced along the first non-singleton dimension, or along @var{dim}; a
## @var{dim} beyond the dimensions gives @code{conj (@var{x}) .* @var{y}}.  The first
## argument is conjugated.  The result is single if either input is single and neither
## is an integer, else double, as @code{dot}'s.  Beyond @code{dot}: sizes compatible
## under broadcasting give @code{sum (conj (@var{x}) .* @var{y}, @var{dim})}; integer
## inputs sum exactly (up to 2^53; 64-bit values past 2^53 enter rounded to double, as in
## @code{dot}) where @code{dot} saturates, and enter by their values
## beside fractional ones (@code{gdot (int8 ([1 2]), [1.5 1])} is 3.5, where @code{dot}
## rounds each product to int8: 4); sparse inputs are reduced from their nonzeros, with a
## full result (0 * Inf and 0 * NaN at their zeros are NaN, as for full operands).
##
## Options, as name/value pairs (names and values in any case):
## @table @code
## @item "accum"
## @code{"double"} (default): accumulate in double; products of singles are exact there,
## so single results are correctly rounded but for ill-conditioned sums.
## @code{"native"}: in the input precision, as @code{dot} (fastest, least accurate).
## @code{"compensated"}: Ogita-Rump-Oishi Dot2 in double, as accurate as twice the
## working precision.
## @code{"exact"}: the exact sum of the exact products, rounded once to nearest (ties to
## even) in the result's class; complex results each part so.  Correct for any
## conditioning and any exponents (@code{gdot ([1e200 1e200 3], [1e200 -1e200 0.5],
## "accum", "exact")} is 1.5; subnormal results correctly rounded; Inf only where the
## rounded result overflows), the same bits on every engine, device and order of the
## terms.  Its cost: on the GPU, real garrays along columns 1.01-1.11x a native call's
## time for doubles (3.1-3.6x where the products span most of the exponent range), 1.03-1.21x
## for singles (1.1-1.4x), 2^24 to 2^30 elements on an H100; complex ones 2-2.7x
## @code{"double"}'s; many short columns 1.1-4.3x a native call (an H200); garrays on
## several GPUs on their devices; rows of garrays are summed on the host; on the CPU
## engine 0.9-1.5x @code{"double"}'s time on random data (zeros among it too; many short
## columns 1.1-9x), 2.0-3.7x where the products span most of the exponent range (10^7
## elements, 2 cores of an AVX-512 CPU; with AVX2 alone 1.0-1.6x on random data, 6-7x over
## the exponent range).
## @item "device"
## @code{"auto"} (default): garrays on the GPU, host arrays on the CPU engine (copying host
## data to a GPU costs more than the CPU engine's whole reduction); without a usable GPU
## everything on the CPU engine, with one @code{gpudot:noDevice} warning a session.
## @code{"gpu"}: the GPU, or a @code{gpudot:noDevice} error.  @code{"cpu"}: the CPU engine.
## @item "kernel"
## Teaching: one dot product of two real vectors with one GPU kernel of the reduction
## ladder, @code{"atomic"}, @code{"shared"}, @code{"shuffle"}, @code{"vector"} or
## @code{"fused"} (the production kernel), each adding one idea
## (cuda/ladder_kernels.cuh); @var{ms} is the kernels' GPU time.
## @code{gpudot_demo ("ladder")} compares them.
## @end table
##
## Results are bitwise identical from run to run for the same input, engine and device:
## the reduction order is fixed, with no floating-point atomics.
##
## Errors (identifiers): @code{gpudot:badType} (not numeric), @code{gpudot:sizeMismatch},
## @code{gpudot:badDim}, @code{gpudot:badOption}, @code{gpudot:noDevice},
## @code{gpudot:outOfMemory}, @code{gpudot:cuda} (with CUDA's text; after a kernel fault
## CUDA is lost to the process until Octave restarts, while @code{"auto"} goes on with the
## CPU engine), @code{gpudot:interrupted} (Ctrl-C; the next call works).
## @seealso{dot, gnorm, gcosine, garray, gather, gpudot_info, gpudot_gpu_available,
## gpudot_demo}
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
%! ## Everyday use: dot products of host arrays and of data kept on the GPU
%! x = single (rand (1e6, 1));  y = single (rand (1e6, 1));
%! printf ("dot (native single): %.8g\ngdot (double sums):   %.8g\n", dot (x, y), gdot (x, y));
%! G = garray (x);  H = garray (y);
%! printf ("on %s: %.8g\n", ifelse (gpudot_gpu_available (), "the GPU", "the CPU engine"), gdot (G, H));
%! ## one vector against every column
%! disp (gdot (ones (3, 1), magic (3)))
