## Copyright (C) 2026 gpudot developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {@var{n} =} gnorm (@var{x})
## @deftypefnx {} {@var{n} =} gnorm (@var{x}, @var{p})
## @deftypefnx {} {@var{n} =} gnorm (@var{x}, @var{p}, @var{dim})
## @deftypefnx {} {@var{n} =} gnorm (@dots{}, @var{name}, @var{value})
## Vector p-norm of @var{x}, as @code{norm} for vectors and @code{vecnorm} for arrays,
## without overflow or underflow: on an NVIDIA GPU for garrays, on the CPU engine for host
## arrays.
##
## @example
## @group
## gnorm ([3 4])                   # 5
## gnorm ([1e200 1e200])           # 1.4142e+200, no overflow
## gnorm (magic (4), 1)            # column sums of |x|, like vecnorm (x, 1)
## gnorm (magic (4), "fro")        # the Frobenius norm, like norm (A, "fro")
## gnorm (garray (randn (1e6, 1))) # on the GPU
## @end group
## @end example
##
## For a vector, @code{norm (@var{x}, @var{p})}; for matrices and N-D arrays, the norm of
## each vector along the first non-singleton dimension or along @var{dim}, like
## @code{vecnorm}.  These are vector norms: @code{gnorm} of a matrix is not the matrix
## 2-norm that @code{norm} gives.  A @var{dim} larger than @code{ndims} gives
## @code{abs (@var{x})}; @code{gnorm ([])} is 0, as @code{norm ([])}.
##
## @var{p} is 2 (default), @code{"fro"} (without @var{dim}: the 2-norm of all of @var{x}'s
## elements, @code{norm (x, "fro")}), 1, @code{Inf} or @code{"inf"}
## (largest magnitude), @code{-Inf} or @code{"-inf"} (smallest), 0 (the number of nonzero
## elements, as @code{norm} counts them), or any real scalar.  For @var{p} < 0 the result
## is the true value @code{(sum (abs (x) .^ p)) ^ (1/p)}, which is 0 when any element is
## 0; Octave's @code{norm} returns Inf there instead.
##
## Overflow and underflow: the result is right whenever it is representable, for every
## @var{p} and accumulate mode, on both engines: @code{gnorm ([1e200 1e200])} is
## 1.4142e200 and @code{gnorm ([1e-310 1e-310])} is 1.4142e-310.  Elements are scaled by
## powers of two (exact) as the accumulation runs, in one pass over the data.
##
## Complex elements contribute their modulus.  Single in, single out.  NaN propagates;
## Inf gives Inf (for @var{p} > 0).  An element half Inf, half NaN counts by its modulus,
## Inf, at @var{p} = Inf and -Inf; Octave's @code{norm} (and @code{vecnorm} in Octave
## 11.3) gives NaN there, and so do they for a garray.  Sparse inputs are reduced from
## their nonzeros.
##
## Options @code{"accum"} and @code{"device"} as for @code{gdot}: @code{"double"}
## (default) accumulates in double, @code{"native"} in the input precision,
## @code{"compensated"} adds the rounding error of every term back (2 and other
## @var{p}).  @code{"exact"} (@var{p} = 1, 2, Inf, -Inf, 0 or @code{"fro"}): the 1-norm is
## the exact sum rounded once, the 2-norm the correctly rounded square root of the exact
## sum of squares, the same bits on every engine (complex 1- and Inf-norms take each
## modulus correctly rounded); other @var{p} are a @code{gpudot:badOption} error.  On
## garrays the sums run on the GPU (2^26 doubles on an H100: 1.8x @code{"double"}'s time
## for the 2-norm, 1.3x for the 1-norm; complex 1- and Inf-norms on the host).
##
## Errors: @code{gpudot:badType} (not numeric), @code{gpudot:badOption} (bad @var{p}:
## unknown string, complex, non-scalar, NaN; bad option), @code{gpudot:badDim},
## @code{gpudot:noDevice} (@code{"device", "gpu"} without a usable GPU),
## @code{gpudot:outOfMemory}, @code{gpudot:cuda} (other CUDA failures, with CUDA's text;
## after a kernel fault it says the GPU needs Octave restarted), @code{gpudot:interrupted}
## (Ctrl-C during a long call).
##
## @seealso{norm, vecnorm, gdot, gcosine, garray, gather, gpudot_info, gpudot_demo}
## @end deftypefn

function n = gnorm (x, varargin)

  ## Reached where the compiled entry gnorm.oct is not (it answers every call itself): the
  ## MEX parses the arguments as gnorm.oct does.
  if (nargin < 1)
    print_usage ();
  endif
  n = __gpudot__ ("__entry__", "gnorm", x, varargin{:});

endfunction

%!assert (gnorm ([3 4]), 5)
%!assert (gnorm ([3; 4], 1), 7)
%!assert (gnorm ([1e200 1e200]), sqrt (2) * 1e200, -4 * eps)
%!assert (gnorm (magic (3), 1), [15 15 15])
%!assert (class (gnorm (single ([3 4]))), "single")
%!error <Invalid call> gnorm ()
%!error id=gpudot:badOption gnorm ([1 2], "bad")

%!demo
%! ## Everyday use: vector norms, column norms, and norms that do not overflow
%! printf ("gnorm ([3 4]) = %g\n", gnorm ([3 4]));
%! printf ("column 1-norms of magic (4): %s\n", mat2str (gnorm (magic (4), 1)));
%! printf ("gnorm ([1e200 1e200]) = %g, norm gives %g\n", gnorm ([1e200 1e200]), norm ([1e200 1e200]));
%! g = garray (single (randn (1e6, 1)));
%! printf ("2-norm of a garray of 10^6 singles: %g\n", gnorm (g));
