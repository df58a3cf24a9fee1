## Copyright (C) 2026 gpudot developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{E} =} fuzz_exact ()
## The differential fuzzer's checks of @qcode{"exact"} calls (tests/fuzz_diff.m), as a
## struct of function handles: the same call on its terms reversed gives the same bits
## (@code{reversed}); gdot of runs followed by their own terms negated and permuted gives
## 0 (@code{cancelled}); a whole vector's terms as 4096 columns of garrays, each in its
## own order, give its bits in every column (@code{columns}).  Each raises an error naming
## the case where it fails.
## @end deftypefn

function E = fuzz_exact ()
  persistent e;
  if (isempty (e))
    e = struct ("reversed", @exact_reversed, "cancelled", @exact_cancelled,
                "columns", @exact_columns);
  endif
  E = e;
endfunction

## "exact" gdot of real or complex floating-point operands of one class and size, finite
## (a double beside a single garray is computed in single, where it may overflow): each run
## followed by its own terms negated and permuted sums to 0 exactly, whatever the engine
## or lanes make of it (a lost bit anywhere shows, where a rounded sum seldom shows one)
function exact_cancelled (fn, x, y, xx, yy, dimargs, opts, desc)
  if (! strcmp (fn, "gdot") || ! isfloat (x) || ! strcmp (class (x), class (y))
      || issparse (x) || issparse (y) || ! isequal (size (x), size (y)) || isempty (x)
      || ! all (isfinite (x(:))) || ! all (isfinite (y(:))))
    return;
  endif
  d = reduce_dim (size (x), dimargs);
  if (d > ndims (x))
    return;                                      # (runs of one term)
  endif
  idx = repmat ({":"}, 1, ndims (x));
  idx{d} = randperm (size (x, d));
  cx = cat (d, x, -x(idx{:}));  cy = cat (d, y, y(idx{:}));
  if (isa (xx, "garray"))
    cx = garray (cx);
  endif
  if (isa (yy, "garray"))
    cy = garray (cy);
  endif
  z = gather (gdot (cx, cy, dimargs{:}, opts{:}));
  if (! all (z(:) == 0))
    k = find (z(:) != 0, 1);
    error ("%s: \"exact\" of its runs and their negations, permuted: %.17g, not 0 (output %d)",
           desc, double (real (z(k))), k);
  endif
endfunction

## "exact" of a whole vector: the same terms in 4096 columns of garrays where a GPU is
## usable (an output a warp there, finished from its partial sums where that is certain),
## else 64 host columns (short runs: the CPU engine's double-double try), each column in
## its own order, give its bits in every column; a real gdot's, the exact core's
function exact_columns (fn, x, y, pargs, opts, got, desc)
  has_y = ! strcmp (fn, "gnorm");
  if (numel (got) != 1 || numel (x) < 2 || numel (x) > 512
      || ! isfloat (x) || issparse (x) || ! isvector (x)
      || (has_y && (! strcmp (class (x), class (y)) || issparse (y) || numel (y) != numel (x))))
    return;
  endif
  if (! has_y && (isempty (pargs) || (ischar (pargs{1}) && strcmpi (pargs{1}, "fro"))))
    pargs = {2};                                 # (P before the dimension)
  endif
  gpu = gpudot_gpu_available ();
  m = ifelse (gpu, 4096, 64);
  [~, ord] = sort (rand (numel (x), m));
  X = x(:)(ord);
  if (iscomplex (x) && isreal (X))
    X = complex (X);
  endif
  args = {X};
  if (has_y)
    Y = y(:)(ord);
    if (iscomplex (y) && isreal (Y))
      Y = complex (Y);
    endif
    args{2} = Y;
  endif
  if (gpu)
    args = cellfun (@garray, args, "uniformoutput", false);
  endif
  all_ = gather (feval (fn, args{:}, pargs{:}, 1, opts{:}));
  want = repmat (cast (got, class (all_)), 1, m);
  zsign = @(v) signbit (v) & v == 0;
  if (! (isequaln (all_, want) && isequal (zsign (real (all_)), zsign (real (want)))
         && isequal (zsign (imag (all_)), zsign (imag (want)))))
    k = find (! (all_ == want | (isnan (all_) & isnan (want))), 1);
    error ("%s: \"exact\" of its terms in %d columns differs (column %d)", desc, m, k);
  endif
  if (strcmp (fn, "gdot") && isreal (x) && isreal (y) && strcmp (class (got), class (x)))
    core = __gpudot__ ("exact_dot", x(:), y(:));
    if (! (isequaln (got, core) && (got != 0 || signbit (got) == signbit (core))))
      error ("%s: \"exact\" %.17g, the exact core %.17g", desc, double (got), double (core));
    endif
  endif
endfunction

## f (x) for a reordering f, complex where x is (indexing narrows a complex array whose
## imaginary parts are all 0 to a real one, whose products gdot leaves out: 0 Inf is no
## NaN there; its parts reordered alike keep an imaginary -0)
function r = reorder (f, x)
  r = f (x);
  if (iscomplex (x) && isreal (r))
    r = complex (f (real (x)), f (imag (x)));
  endif
endfunction

## "exact": the same call on the operands reversed along the reduced dimension (every
## run's terms in the opposite order) gives the same bits
function exact_reversed (fn, x, y, xx, yy, pargs, dimargs, opts, got, desc)
  has_y = ! strcmp (fn, "gnorm");
  fx = fy = @(v) v;
  if (has_y && isempty (dimargs) && isvector (x) && isvector (y) && numel (x) == numel (y))
    fx = fy = @(v) v(end:-1:1);                 # dot's vector rule: along the vectors
  else
    if (has_y)
      d = reduce_dim (size (zeros (size (x)) .* zeros (size (y))), dimargs);
    elseif (! isempty (pargs) && ischar (pargs{1}) && strcmpi (pargs{1}, "fro") && isempty (dimargs))
      d = 0;                                     # every element: one order for another
    else
      d = reduce_dim (size (x), dimargs);
    endif
    if (d == 0)
      fx = @(v) v(end:-1:1);
    elseif (d <= ndims (x))                      # (past them: a singleton, as sparse's 2)
      fx = @(v) flip (v, d);
    endif
    if (has_y && d > 0 && d <= ndims (y))
      fy = @(v) flip (v, d);
    endif
  endif
  rx = reorder (fx, x);
  ry = reorder (fy, y);
  if (isa (xx, "garray"))
    rx = garray (rx);
  endif
  if (has_y && isa (yy, "garray"))
    ry = garray (ry);
  endif
  if (has_y)
    again = feval (fn, rx, ry, dimargs{:}, opts{:});
  else
    again = feval (fn, rx, pargs{:}, dimargs{:}, opts{:});
  endif
  again = cast (gather (again), class (got));
  zsign = @(v) signbit (v) & v == 0;            # the sign of zeros (a NaN's is not IEEE's)
  same = (isequal (size (again), size (got)) && isequaln (again, got)
          && isequal (zsign (real (again)), zsign (real (got)))
          && isequal (zsign (imag (again)), zsign (imag (got))));
  if (! same)
    k = find (double (again(:)) != double (got(:)), 1);
    error ("%s: \"exact\" differs with the terms reversed (output %d)", desc, k);
  endif
endfunction
