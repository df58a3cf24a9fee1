## Copyright (C) 2026 gpudot developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {[@var{S}, @var{I}] =} gsearch (@var{Q}, @var{D}, @var{k})
## @deftypefnx {} {@var{S} =} gsearch (@var{Q}, @var{D})
## @deftypefnx {} {@dots{} =} gsearch (@dots{}, @var{name}, @var{value})
## Similarity search: every column of @var{Q} (the queries, d x m) against every column
## of @var{D} (d x n), the best @var{k} of each query.
##
## @example
## @group
## D = garray (single (randn (768, 1e6)));   # embeddings, copied to the GPU once
## Q = single (randn (768, 100));            # 100 queries
## [S, I] = gsearch (Q, D, 10);              # 10 x 100: best cosines, their columns
## @end group
## @end example
##
## @var{S}(:, j) holds the @var{k} largest cosine similarities of query j, largest first,
## and @var{I}(:, j) the columns of @var{D} they belong to: the first @var{k} of a stable
## sort of the scores, so equal scores go to the lowest column.  NaN scores (a zero
## column, or NaN or Inf elements) come after every number.  A @var{k} above n gives all
## n, @var{k} = 0 empty results.  Without @var{k}, @var{S} is every score, n x m
## (its column j: @code{gcosine (Q(:, j), D)}, transposed).
##
## On the GPU, for a garray @var{D}, the scores are computed in blocks as a matrix product
## is, with @var{D} read once for all the queries, and the best @var{k} are chosen on
## the device: the n x m scores never reach the host (nor exist whole on the device).
## A garray on several GPUs is searched on all of them at once, the same answer for any
## list of devices.  Host data goes to the CPU engine: blocks of columns against the
## queries on all its threads, and a partial selection (not a sort) of the best.
##
## Shapes follow @code{gcosine}'s columns-as-vectors convention.  The statistics
## package's @code{[Idx, Dist] = knnsearch (X, Y, "K", k, "Distance", "cosine")} is
## @code{[S, I] = gsearch (Y', X', k)} with @code{Idx = I'} and @code{Dist = 1 - S'},
## and @code{pdist2 (X, Y, "cosine")} is @code{1 - gsearch (Y', X')}, for rows that are
## not zero (a zero row's cosine is NaN here; statistics 1.5's @code{pdist2} gives it the
## distance 0).
##
## Options, names and values in any case:
## @table @asis
## @item @qcode{"metric"}
## @qcode{"cosine"} (default) or @qcode{"dot"} (@code{dot (Q(:, j), D(:, i))}, the
## largest first).
## @item @qcode{"accum"}
## @qcode{"double"} (default: products of singles are exact in double),
## @qcode{"native"} (the fastest within single's error bound: single in single, never
## TF32; for more than 8 queries on Hopper GPUs, whose FP64 tensor cores run it faster
## than their single cores, the same as @qcode{"double"}) or @qcode{"compensated"} (as
## @code{gdot}'s, Dot2 in double: on the GPU in the same blocks on its double cores,
## several times slower than @qcode{"double"}; on the CPU engine query by query).  Scores
## are rounded to @var{D}'s class.
## @item @qcode{"device"}
## @qcode{"auto"} (default: garrays on the GPU, host arrays on the CPU engine),
## @qcode{"gpu"}, @qcode{"cpu"}.
## @item @qcode{"output"}
## @qcode{"host"} (default) or @qcode{"garray"}: @var{S} and @var{I} as garrays.  Every
## score (no @var{k}) of a garray @var{D} on the GPU then goes straight into a garray on
## its GPU, never through the host (n x m: 400 MB for 10^6 columns and 100 queries in
## single); @code{maxk}, @code{mink}, @code{max}, @code{min}, indexing and @code{gather}
## work on it there.
## @end table
##
## @var{Q} and @var{D} are real single or double matrices (or garrays) with the same
## number of rows; the queries are converted to @var{D}'s class, and the results have it.
## Where a squared norm leaves the accumulator's range (huge, tiny or zero columns of
## doubles, or singles in @qcode{"native"}), the cosines are computed query by query
## through @code{gcosine}, scaled: slower, never wrong.
##
## Errors (identifiers): @code{gpudot:badType}, @code{gpudot:sizeMismatch} (rows of
## @var{Q} and @var{D} differ), @code{gpudot:badOption} (a @var{k} that is not a
## non-negative integer, an unknown option), @code{gpudot:noDevice},
## @code{gpudot:outOfMemory}, @code{gpudot:cuda}.
##
## @seealso{gcosine, gdot, garray, maxk}
## @end deftypefn

function [S, I] = gsearch (Q, D, varargin)

  if (nargin < 2)
    print_usage ();
  elseif (nargin >= 3 && isobject (D) && ! ischar (varargin{1}))
    ## the common calls (a garray D on the GPU, Q of its class, k <= 256, "metric" and
    ## "accum") in one gateway call, which declines (done false) anything else
    [S, I, done] = __gpudot__ ("gsearch", Q, D, varargin{:});
    if (done)
      return;
    endif
  endif
  k = [];
  if (numel (varargin) > 0 && ! ischar (varargin{1}))
    k = varargin{1};
    varargin(1) = [];
    if (! (isnumeric (k) && isscalar (k) && isreal (k) && k >= 0 && k == fix (k) && isfinite (k)))
      error ("gpudot:badOption", "gsearch: K must be a non-negative integer");
    endif
    k = double (k);
  endif
  [cosine, accum, device, to_garray] = options (varargin);
  [Q, D, id, ondev, ndev, n] = operands (Q, D);
  on_gpu = ondev;
  if (strcmp (device, "cpu"))
    on_gpu = false;
  elseif (strcmp (device, "gpu") && ! on_gpu)
    if (! gpudot_gpu_available ())
      error ("gpudot:noDevice", "gsearch: \"device\", \"gpu\": no usable CUDA device");
    endif
    D = garray (D);
    [id, on_gpu, ~, ~, ~, ndev] = facts (D);
  endif
  if (! on_gpu && id > 0)
    D = gather (D);
  endif

  unsafe = true;
  kd = -1;
  if (! isempty (k))
    kd = k;
  endif
  mode = find (strcmp (accum, {"native", "compensated"}), 1);   # the gateway's 0, 1, 2
  if (isempty (mode))
    mode = 0;
  endif
  if (! on_gpu && mode == 2)
    ;                                   # (the CPU engine: query by query, below)
  elseif (to_garray && on_gpu && kd < 0 && ! (ndev > 1 && n == 1))
    [id, dev, unsafe] = __gpudot__ ("garray_scores", Q, id, cosine, mode);
    S = garray.from_id (id, [n, columns(Q)], class (Q), false, dev);
    I = [];
  elseif (! on_gpu)
    [S, I, unsafe] = __gpudot__ ("search", Q, D, kd, cosine, mode);
  elseif (! (ndev > 1 && n == 1))
    ## the best k on the device where it chooses them (k <= 256), else every score
    if (kd > 256)
      kd = -1;
    endif
    [S, I, unsafe] = __gpudot__ ("garray_search", Q, id, kd, cosine, mode);
  endif
  if (unsafe)
    S = by_query (Q, D, n, cosine, accum);
  endif
  if (! isempty (k) && (unsafe || kd != k))
    [S, I] = __gpudot_topk__ (S, k, 1, false);
  elseif (isempty (k))
    I = [];
  endif
  if (to_garray && ! isa (S, "garray"))
    S = garray (S);
    if (! isempty (k))
      I = garray (I);
    endif
  endif

endfunction

function [cosine, accum, device, to_garray] = options (args)
  cosine = true;
  accum = "double";
  device = "auto";
  to_garray = false;
  if (mod (numel (args), 2))
    error ("gpudot:badOption", "gsearch: options come in name, value pairs");
  endif
  for a = 1:2:numel (args)
    name = args{a};
    val = args{a+1};
    if (! ischar (name) || ! ischar (val))
      error ("gpudot:badOption", "gsearch: option names and values are strings");
    endif
    switch (lower (name))
      case "metric"
        if (! any (strcmpi (val, {"cosine", "dot"})))
          error ("gpudot:badOption", "gsearch: \"metric\" is \"cosine\" or \"dot\", not \"%s\"", val);
        endif
        cosine = strcmpi (val, "cosine");
      case "accum"
        if (! any (strcmpi (val, {"double", "native", "compensated"})))
          error ("gpudot:badOption",
                 "gsearch: \"accum\" is \"double\", \"native\" or \"compensated\", not \"%s\"", val);
        endif
        accum = lower (val);
      case "device"
        if (! any (strcmpi (val, {"auto", "gpu", "cpu"})))
          error ("gpudot:badOption", "gsearch: \"device\" is \"auto\", \"gpu\" or \"cpu\", not \"%s\"", val);
        endif
        device = lower (val);
      case "output"
        if (! any (strcmpi (val, {"host", "garray"})))
          error ("gpudot:badOption", "gsearch: \"output\" is \"host\" or \"garray\", not \"%s\"", val);
        endif
        to_garray = strcmpi (val, "garray");
      otherwise
        error ("gpudot:badOption", "gsearch: unknown option \"%s\"", name);
    endswitch
  endfor
endfunction

## Q (host, D's class) and D (a garray or a host array) checked; id: D's garray id (0: a
## host array), ondev: on the GPU, ndev: its GPUs
function [Q, D, id, ondev, ndev, n] = operands (Q, D)
  if (strcmp (class (Q), "garray"))
    Q = gather (Q);
  endif
  id = 0;
  ondev = false;
  ndev = 0;
  if (strcmp (class (D), "garray"))
    [id, ondev, cls, cx, sz, ndev] = facts (D);
  else
    if (! (isnumeric (D) || islogical (D)) || issparse (D))
      error ("gpudot:badType", "gsearch: D must be a real single or double matrix or garray");
    endif
    cls = "double";
    if (isa (D, "single"))
      cls = "single";
    endif
    cx = iscomplex (D);
    sz = size (D);
    if (! strcmp (class (D), cls))
      D = cast (D, cls);
    endif
  endif
  if (! (isnumeric (Q) || islogical (Q)) || issparse (Q) || iscomplex (Q) || cx)
    error ("gpudot:badType", "gsearch: Q and D must be real (full) arrays");
  endif
  if (numel (sz) > 2 || ndims (Q) > 2)
    error ("gpudot:badType", "gsearch: Q and D must be matrices (columns: vectors)");
  endif
  n = sz(2);
  if (rows (Q) != sz(1))
    error ("gpudot:sizeMismatch", "gsearch: Q has %d rows, D %d: columns are the vectors",
           rows (Q), sz(1));
  endif
  if (! strcmp (class (Q), cls))
    Q = cast (Q, cls);
  endif
endfunction

## Every score, a query at a time through gcosine or gdot (scaled, any mode): n x m
function S = by_query (Q, D, n, cosine, accum)
  fn = ifelse (cosine, @gcosine, @gdot);
  S = zeros (n, columns (Q), class (Q));
  dev = ifelse (strcmp (class (D), "garray"), "auto", "cpu");
  for j = 1:columns (Q)
    if (n > 0)
      S(:, j) = fn (Q(:, j), D, 1, "accum", accum, "device", dev);
    endif
  endfor
endfunction

%!test
%! D = [1 0 1; 0 1 1];
%! [S, I] = gsearch ([1; 0], D, 2);
%! assert (I, [1; 3]);
%! assert (S, [1; 1 / sqrt(2)], 4 * eps);
%!assert (gsearch ([1; 0], [1 0 1; 0 1 1]), [1; 0; 1 / sqrt(2)], 4 * eps)
%!error <K must be> gsearch ([1; 0], [1; 0], -1)
%!error <rows> gsearch ([1; 0; 0], [1; 0], 1)
