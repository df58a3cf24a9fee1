## Copyright (C) 2026 gpudot developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{n}, @var{bad}, @var{msgs}] =} fuzz_diff (@var{seed}, @var{ncases}, @var{devices})
## The differential fuzzer: @var{ncases} random calls, case @var{i} drawn from seed
## @var{seed} + @var{i} - 1, each held to Octave's own function on the same data.
##
## Calls: gdot, gnorm and gcosine (against @code{dot} / @code{sum (conj (x) .* y, dim)},
## @code{norm} / @code{vecnorm} and @code{dot / (norm * norm)}, through tests/check_*.m),
## gsearch (against @code{D' * Q} over the norms and @code{sort}),
## and the garray operations (@code{sum}, @code{mean}, @code{any}, @code{all}, @code{max}
## and @code{min} with indices, @code{maxk} and @code{mink}, @code{dot},
## @code{norm}, @code{vecnorm}, @code{isequal}, @code{isequaln}, indexing, @code{size},
## @code{numel} and the shape queries, @code{gather}) against the same call on the host
## array.  Operands: every class (single, double, complex, int8-64, uint8-64, logical,
## char, sparse, and cells, structs and function handles), shapes from scalars to N-D and empties of every kind, broadcast pairs,
## DIM up to past ndims and invalid ones, p across [-3000, 3000] and the named ones,
## option names and values in any case, and values with NaN, +-Inf, +-0, subnormals,
## near-overflow and near-underflow magnitudes, and cancellation.  Host operands are made
## garrays at random (some in pieces: two "devices", short chunks), and @var{devices}
## (default @code{@{"cpu"@}}) are the @qcode{"device"} values drawn.  The draws are
## tests/fuzz_operands.m's; this file holds the cases and their checks.
##
## A case passes when the value (within the accumulation mode's error bound of a double
## reference), class and size agree, or when both sides refuse the call (gpudot with a
## @code{gpudot:*} or Octave's own identifier).  Each failure is one line of @var{msgs}
## with the seed and a reproducer: @code{fuzz_diff (SEED, 1, DEVICES)}.
## @end deftypefn

function [n, bad, msgs] = fuzz_diff (seed, ncases, devices = {"cpu"})

  n = bad = 0;
  msgs = {};
  warning ("off", "gpudot:noDevice", "local");
  for c = 1:ncases
    s = seed + c - 1;
    rand ("state", s);
    randn ("state", s);
    desc = "";
    try
      desc = one_case (devices);
      n++;
    catch err
      if (sharded_refusal (err))
        n++;
        continue;
      endif
      bad++;

      if (! isempty (err.stack) && getenv ("GPUDOT_FUZZ_TRACE"))
        err.message = sprintf ("%s (%s line %d)", err.message, err.stack(1).name, err.stack(1).line);
      endif
      msgs{end+1} = sprintf ("seed %d: %s; reproduce: fuzz_diff (%d, 1, {%s})", s, err.message, s,
                             strjoin (cellfun (@(d) ["\"" d "\""], devices, "uniformoutput", false), ", "));
    end_try_catch
  endfor

endfunction

## One random call and its check; returns a one-line description (raises on a mismatch,
## the description in the message).
function desc = one_case (devices)
  r = rand ();
  if (r < 0.30)
    desc = case_reduce ("gdot", devices);
  elseif (r < 0.55)
    desc = case_reduce ("gnorm", devices);
  elseif (r < 0.70)
    desc = case_reduce ("gcosine", devices);
  elseif (r < 0.78)
    desc = case_search (devices);
  else
    desc = case_garray ();
  endif
endfunction

## the documented refusal of a garray in pieces (on several GPUs, or several pieces on
## one) reduced along another dimension than its first or a matrix's second
function tf = sharded_refusal (err)
  tf = strcmp (err.identifier, "gpudot:badDim") && ! isempty (strfind (err.message, "a garray on several GPUs"));
endfunction

## ---- gdot, gnorm, gcosine ----

function desc = case_reduce (fn, devices)
  G = fuzz_operands ();
  x = G.random_operand (true);
  has_y = ! strcmp (fn, "gnorm");
  y = [];
  if (has_y)
    y = G.partner (x);
  endif
  [dimargs, dim_ok] = G.random_dim (x);
  [opts, accum, device, opts_ok] = G.random_options (devices);
  p = 2;
  pargs = {};
  p_ok = true;
  if (! has_y && (rand () < 0.8 || ! isempty (dimargs)))
    [p, p_ok] = G.random_p ();
    if (rand () < 0.1)
      p = [];                 # the default, 2
    endif
    pargs = {p};
    if (isempty (p))
      p = 2;
      p_ok = true;
    endif
  endif
  ## host operands made garrays (full single or double only); not a double garray beside a
  ## single host operand, whose computation is double's and result single (documented)
  ## (at random, garrays in pieces on GPU 0, both in one layout: chunks of q elements)
  xx = x;  yy = y;
  q = 0;
  if (rand () < 0.3)
    chunks = [1 7 64 4096];
    q = chunks(randi (numel (chunks)));
  endif
  if (rand () < 0.3 && is_garrayable (x) && ! (isa (x, "double") && isa (y, "single")))
    xx = G.make_garray (x, q);
  endif
  if (has_y && rand () < 0.3 && is_garrayable (y) && ! (isa (y, "double") && isa (x, "single"))
      && (! isa (xx, "garray") || strcmp (class (x), class (y))))
    yy = G.make_garray (y, q);
  endif
  if (has_y)
    args = [{xx, yy}, dimargs, opts];
  else
    args = [{xx}, pargs, dimargs, opts];
  endif
  if (rand () < 0.02)                 # too few arguments: Octave's invalid-call error
    args = args(1:ifelse (has_y, 1, 0));
    try
      feval (fn, args{:});
    catch err
      if (strcmp (err.identifier, "Octave:invalid-fun-call"))
        desc = sprintf ("%s with %d arguments", fn, numel (args));
        return;
      endif
      error ("%s with %d arguments: [%s] %s", fn, numel (args), err.identifier, err.message);
    end_try_catch
    error ("%s with %d arguments: no error", fn, numel (args));
  endif
  desc = sprintf ("%s (%s%s%s%s%s)", fn, describe (x, xx), ifelse (has_y, [", " describe(y, yy)], ""),
                  ifelse (isempty (pargs), "", [", p = " show(p)]), show_args (dimargs), show_args (opts));

  ## what the call must do: refuse (and with which identifiers), or answer
  types_ok = accepts (x) && (! has_y || accepts (y));
  if (strcmp (accum, "exact") && ! has_y && p_ok && isnumeric (p) && ! any (p == [0 1 2 Inf -Inf]))
    p_ok = false;                     # "exact" takes P = 0, 1, 2, Inf, -Inf, "fro"
  endif
  sizes_ok = ! has_y || compatible (x, y, dimargs);
  want_error = ! (types_ok && dim_ok && opts_ok && p_ok && sizes_ok);
  dump (x, y, args);
  try
    got = feval (fn, args{:});
  catch err
    if (want_error && strncmp (err.identifier, "gpudot:", 7))
      return;
    endif
    ## documented: a broadcast that would need a copy of a garray operand on the GPU
    if (strcmp (err.identifier, "gpudot:gatherFirst") && (isa (xx, "garray") || isa (yy, "garray")))
      return;
    endif
    ## documented: garrays in pieces reduce along a vector or a matrix's columns or rows,
    ## and two of them of different sizes do not broadcast
    if (q > 0 && strcmp (err.identifier, "gpudot:badDim") && ! want_error
        && (isa (xx, "garray") || isa (yy, "garray")))
      return;
    endif
    if (q > 0 && strcmp (err.identifier, "gpudot:sizeMismatch") && isa (xx, "garray")
        && isa (yy, "garray") && ! isequal (size (x), size (y)))
      return;
    endif
    error ("%s: unexpected error [%s] %s", desc, err.identifier, err.message);
  end_try_catch
  if (want_error)
    error ("%s: no error where one is due (types %d, dim %d, options %d, p %d, sizes %d)",
           desc, types_ok, dim_ok, opts_ok, p_ok, sizes_ok);
  endif

  x0 = x;  y0 = y;                    # (as called: "exact" calls them again reversed)
  ## an integer operand makes the result double (gdot's rule): the reference is double;
  ## beside a single garray on the GPU the computation is single's (the result rounded to
  ## single; a garray held on the host where no GPU is usable is host data)
  got0 = got;
  if ((isinteger (x) || isinteger (y)) && gpudot_gpu_available ()
      && ((isa (xx, "garray") && isa (x, "single")) || (isa (yy, "garray") && isa (y, "single"))))
    x = single (x);  y = single (y);
    got = single (got);
  elseif (isinteger (x) || isinteger (y))
    x = double (x);  y = double (y);
  endif
  xr = to_ref (x);  yr = to_ref (y);
  try
    switch (fn)
      case "gdot"
        check_dot (xr, yr, dimargs, accum, device, false, got);
      case "gnorm"
        if (ischar (p))
          p = lower (p);
        endif
        check_norm (xr, p, dimargs, accum, device, got);
      case "gcosine"
        check_cosine (xr, yr, dimargs, accum, device, got);
    endswitch
  catch err
    error ("%s: %s", desc, err.message);
  end_try_catch
  if (strcmp (accum, "exact"))
    ## those checks at a level of the CPU's bulk loops drawn (its own, the AVX2 lanes, one
    ## product at a time; at most the CPU's): the same bits by every path
    level = __gpudot__ ("exact_lanes", [-1 3 0](randi (3)));
    desc = sprintf ("%s [exact lanes %d]", desc, level);
    unwind_protect
      E = fuzz_exact ();
      E.reversed (fn, x0, y0, xx, yy, pargs, dimargs, opts, got0, desc);
      E.cancelled (fn, x0, y0, xx, yy, dimargs, opts, desc);
      E.columns (fn, x0, y0, pargs, opts, got0, desc);
    unwind_protect_cleanup
      __gpudot__ ("exact_lanes", -1);
    end_unwind_protect
  endif
endfunction

## ---- garray operations against the same call on the host array ----

function desc = case_garray ()
  G = fuzz_operands ();
  x = G.random_operand (false);
  while (! is_garrayable (x))
    x = G.random_operand (false);
  endwhile
  ## at random a garray in pieces on GPU 0 (chunks of q elements), whose methods take
  ## other paths (through the host for some)
  q = 0;
  if (rand () < 0.25)
    q = [1 7 64 4096](randi (4));
  endif
  g = G.make_garray (x, q);
  gn = ifelse (q > 0, sprintf ("garray in pieces of %d", q), "garray");
  ops = {"sum", "mean", "any", "all", "max", "min", "maxk", "mink", "dot", "norm", "vecnorm", ...
         "isequal", "isequaln", "index", "size", "shape", "gather"};
  op = ops{randi(numel (ops))};
  desc = sprintf ("%s of %s (%s)", op, gn, describe (x, x));
  switch (op)
    case {"sum", "mean", "any", "all"}
      desc = garray_reduce (op, g, x, q, gn);
    case {"max", "min"}
      desc = garray_extreme (op, g, x, gn);
    case {"maxk", "mink"}
      desc = garray_topk (op, g, x, gn);
    case "dot"
      desc = garray_dot (g, x, gn);
    case {"norm", "vecnorm"}
      desc = garray_norm (op, g, x, q, gn);
    case {"isequal", "isequaln"}
      garray_equal (op, g, x, q, desc);
    case "index"
      desc = garray_index (g, x, gn);
    case "size"
      k = randi (ndims (x) + 2);
      same_exactly (size (g), size (x), desc);
      same_exactly (size (g, k), size (x, k), desc);
      [a, b] = size (g);
      [c, d] = size (x);
      same_exactly ([a b], [c d], desc);
    case "shape"
      same_exactly ([length(g) ndims(g) rows(g) columns(g)], [length(x) ndims(x) rows(x) columns(x)], desc);
      same_exactly ([isempty(g) isvector(g) isscalar(g) isreal(g)], [isempty(x) isvector(x) isscalar(x) isreal(x)], desc);
      if (garray.numel_counts)
        same_exactly (numel (g), numel (x), desc);
      endif
    case "gather"
      same_exactly (gather (g), x, desc);
  endswitch
endfunction

## sum, mean, any or all of a garray, along its first dimension or a random one
function desc = garray_reduce (op, g, x, q, gn)
  G = fuzz_operands ();
  m = max (abs (x(isfinite (x))));
  if (isa (x, "single") && rand () < 0.3 && ! isempty (m) && m > 0)
    ## scaled by a power of two to realmax's octave: sums of a few pass it, their means
    ## do not
    x = single (double (x) * pow2 (floor (log2 (double (realmax ("single")) / double (m)))));
    g = G.make_garray (x, q);
  endif
  dimargs = {};
  if (rand () < 0.5)
    dimargs = {randi(ndims (x) + 2)};
  endif
  desc = sprintf ("%s (%s (%s)%s)", op, gn, describe (x, x), show_args (dimargs));
  dump (x, [], dimargs);
  got = feval (op, g, dimargs{:});
  want = feval (op, x, dimargs{:});
  if (any (strcmp (op, {"any", "all"})))
    ## any ignores NaN and all counts it as true, as Octave's any and all do along the
    ## first dimension (Octave 7-11's all along a later one treats NaN as false where the
    ## dimensions before it hold more than one element: documented in garray's help)
    z = x;
    z(isnan (z)) = ifelse (strcmp (op, "any"), 0, 1);
    want = feval (op, z, dimargs{:});
    same_exactly (got, want, desc);
  else
    if (! isempty (x) && (isa (x, "single")
                          || (strcmp (op, "mean") && iscomplex (x) && ! all (isfinite (x(:))))))
      ## the sum in double (over the count), rounded once, as garrays document it: Octave
      ## sums singles in single, whose partial sums overflow where the total may not (Inf
      ## plus -Inf: NaN), and so does the mean of Octave 7 and 8 (9 and later sum in
      ## double); Octave 11.3's mean of complex values with a NaN or Inf gives 0, as its
      ## sum (..., "extra") does, where 7-10 give the sum over the count
      d = reduce_dim (size (x), dimargs);
      want = cast (sum (double (x), d) / ifelse (strcmp (op, "mean"), size (x, d), 1), class (x));
    endif
    same_within (got, want, feval (op, abs_parts (x), dimargs{:}), sum_len (x, dimargs), desc);
  endif
endfunction

## [m, i] = max or min of a garray: the same values and indices, exactly
function desc = garray_extreme (op, g, x, gn)
  args = {};
  if (rand () < 0.5)
    args = {[], randi(ndims (x) + 2)};
  endif
  desc = sprintf ("[m, i] = %s (%s (%s)%s)", op, gn, describe (x, x), show_args (args));
  dump (x, [], args);
  [gm, gi] = feval (op, g, args{:});
  [wm, wi] = feval (op, x, args{:});
  same_exactly (gm, wm, desc);
  same_exactly (gi, wi, desc);
endfunction

## [b, i] = maxk or mink of a garray against the first k of a stable sort
function desc = garray_topk (op, g, x, gn)
  k = randi ([0, max(3, numel (x) + 2)]);
  if (rand () < 0.3)
    k = randi ([0 300]);
  endif
  args = {k};
  dim = find (size (x) != 1, 1);
  if (isempty (dim))
    dim = 1;
  endif
  if (rand () < 0.5)
    dim = randi (ndims (x) + 2);
    args{2} = dim;
  endif
  desc = sprintf ("[b, i] = %s (%s (%s)%s)", op, gn, describe (x, x), show_args (args));
  [gb, gi] = feval (op, g, args{:});
  [wb, wi] = ref_topk (x, k, dim, strcmp (op, "mink"));
  same_exactly (gb, wb, desc);
  same_exactly (gi, wi, desc);
endfunction

## dot of a garray and a host array of its class, within check_dot's bounds
function desc = garray_dot (g, x, gn)
  G = fuzz_operands ();
  y = G.partner (x);
  if (! (isnumeric (y) || islogical (y) || ischar (y)))
    y = randn (size (x));
  elseif (! isfloat (y) || issparse (y))
    y = double (full (y));
  endif
  y = cast (y, class (x));
  dimargs = {};
  if (rand () < 0.3)
    dimargs = {randi(ndims (x) + 1)};
  endif
  desc = sprintf ("dot (%s (%s), %s%s)", gn, describe (x, x), describe (y, y), show_args (dimargs));
  ok_ref = true;
  try
    want = dot (x, y, dimargs{:});
  catch
    ok_ref = false;
  end_try_catch
  if (ok_ref)
    dump (x, y, dimargs);
    got = dot (g, y, dimargs{:});
    try
      check_dot (x, y, dimargs, "double", "auto", false, got);
    catch err
      error ("%s: %s", desc, err.message);
    end_try_catch
  endif
endfunction

## norm or vecnorm of a garray against Octave's, or its refusal where documented
function desc = garray_norm (op, g, x, q, gn)
  G = fuzz_operands ();
  odd = ! isempty (x) && rand () < 0.15;
  if (odd)
    ## a value half Inf, half NaN: its modulus is Inf, Octave's norm takes it for a NaN
    ## at p = Inf and -Inf
    x(randi (numel (x))) = complex (cast ([Inf -Inf NaN](randi (3)), class (x)), NaN);
    if (rand () < 0.5)
      x = complex (imag (x), real (x));
    endif
    g = G.make_garray (x, q);
  endif
  if (! isempty (x) && rand () < 0.1)
    ## a NaN among numbers: Octave 7 to 10's vecnorm (x, Inf) skips it, their norm does not
    x(randi (numel (x))) = NaN;
    g = G.make_garray (x, q);
  endif
  [p, p_ok] = G.random_p ();
  if (odd && rand () < 0.5)
    p = {Inf, -Inf, "inf", "-inf"}{randi(4)};
    p_ok = true;
  endif
  if (strcmp (op, "norm") && p_ok && rand () < 0.3)
    desc = norm_opt (g, x, p);
    return;
  endif
  dimargs = {};
  if (strcmp (op, "vecnorm") && rand () < 0.5)
    dimargs = {randi(ndims (x) + 1)};
  endif
  desc = sprintf ("%s (%s (%s), %s%s)", op, gn, describe (x, x), show (p), show_args (dimargs));
  try
    got = feval (op, g, p, dimargs{:});
    ok_got = true;
  catch err
    ok_got = false;
    if (! (strncmp (err.identifier, "gpudot:", 7)))
      error ("%s: unexpected error [%s] %s", desc, err.identifier, err.message);
    endif
  end_try_catch
  ## refused: where Octave answers, only the matrix norms that need singular values or
  ## Higham's iteration (gatherFirst: Octave's own answer is not needed, and it took
  ## 100-300 s for a 64 x 4100 matrix and p = 671), and a P that is not one (Octave
  ## checks none for an empty array)
  ok_ref = ok_got || ! strcmp (err.identifier, "gpudot:gatherFirst");
  if (ok_ref)
    try
      want = feval (op, double (x), p, dimargs{:});
    catch
      ok_ref = false;
    end_try_catch
  endif
  if (! ok_got && sharded_refusal (err))
    return;
  endif
  if (! ok_got && ok_ref && p_ok)   # (ok_ref: a refusal other than gatherFirst)
    error ("%s: refused [%s] %s where Octave answers", desc, err.identifier, err.message);
  endif
  if (ok_got && ok_ref && p_ok)
    pp = p;
    if (ischar (pp))
      pp = lower (pp);
    endif
    if (strcmp (op, "vecnorm") && isempty (x))
      same_exactly (got, vecnorm (x, p, dimargs{:}), desc);   # (its shape differs by release)
      return;
    elseif (strcmp (op, "vecnorm") && isequal (pp, Inf) && any (isnan (x(:)))
            && ! isnan (vecnorm ([NaN 1], Inf)))
      ## this release's vecnorm (x, Inf) is max (abs (x)), which skips NaN
      want = cast (vecnorm (double (x), Inf, dimargs{:}), class (x));
      same_within (got, want, want, 1, desc);
      return;
    endif
    if (strcmp (op, "vecnorm") || isvector (x) || isempty (x) || strcmp (pp, "fro"))
      if (iscomplex (x) && any (strcmpi (num2str (pp), {"inf", "-inf"}))
          && isnan (feval (op, complex (Inf, NaN), pp)))
        ## this release's function takes an element with a NaN part for a NaN at p =
        ## Inf and -Inf (norm; vecnorm in Octave 11.3), not by its modulus (gnorm's)
        x(isnan (x)) = NaN;
      endif
      if (strcmp (op, "norm"))
        xr = x(:);
        assert (isscalar (got), "%s: not a scalar", desc);
        if (isempty (x))
          same_exactly (got, cast (want, class (x)), desc);
          return;
        endif
        check_norm (xr, pp, {}, "double", "auto", got);
      else
        check_norm (x, pp, dimargs, "double", "auto", got);
      endif
    else                        # the matrix 1- and Inf-norms: a max over column sums
      if (any (isnan (x(:))))   # NaN where a sum is (Octave 7-11: where the first sum
        ## is; its sums of complex values half Inf, half NaN are NaN or Inf by which half)
        sums = sum (abs (double (x)), ifelse (isequal (pp, 1), 1, 2));
        want = ifelse (any (isnan (sums(:))), NaN, max (sums(:)));
      endif
      same_within (got, cast (want, class (x)), want, size (x, 1) + size (x, 2), desc);
    endif
  elseif (ok_got && ! ok_ref)
    error ("%s: answered where Octave refuses", desc);
  endif
endfunction

## isequal or isequaln of a garray and a host array, either way round
function garray_equal (op, g, x, q, desc)
  G = fuzz_operands ();
  z = x;
  if (rand () < 0.3 && ! isempty (z))
    z(randi (numel (z))) = NaN;
    g = G.make_garray (z, q);
  endif
  if (rand () < 0.3 && ! isempty (x))
    x(randi (numel (x))) += 1;
  endif
  same_exactly (feval (op, g, x), feval (op, z, x), desc);
  same_exactly (feval (op, x, g), feval (op, x, z), desc);
endfunction

## g(subs) against x(subs): the same values, or the same error identifier
function desc = garray_index (g, x, gn)
  G = fuzz_operands ();
  subs = G.random_subs (x);
  desc = sprintf ("%s (%s)(%s)", gn, describe (x, x), strjoin (cellfun (@show, subs, "uniformoutput", false), ", "));
  try
    want = x(subs{:});
    ok_ref = true;
  catch err_ref
    ok_ref = false;
  end_try_catch
  try
    r = g(subs{:});
    got = gather (r);
    ok_got = true;
  catch err_got
    ok_got = false;
  end_try_catch
  if (ok_ref && ok_got)
    same_exactly (got, want, desc);
  elseif (ok_ref != ok_got)
    error ("%s: Octave %s, garray %s", desc, ifelse (ok_ref, "answers", err_ref.message),
           ifelse (ok_got, "answers", err_got.message));
  elseif (! strcmp (err_ref.identifier, err_got.identifier))
    error ("%s: error identifiers %s (Octave) and %s (garray)", desc, err_ref.identifier,
           err_got.identifier);
  endif
endfunction

## norm (g, p, "rows" or "columns") against Octave's: NaN where Octave's is NaN (an
## element with a NaN part), elsewhere within check_norm's bounds (p < 0 but -Inf: NaN
## alone, the rest as gnorm documents it, 0 where Octave's gives Inf for an element 0)
function desc = norm_opt (g, x, p)
  o = {"rows", "columns", "cols"}{randi(3)};
  d = ifelse (strcmp (o, "rows"), 2, 1);
  desc = sprintf ("norm (garray (%s), %s, \"%s\")", describe (x, x), show (p), o);
  try
    want = norm (double (x), p, o);
  catch
    ## refused as Octave refuses (a P it refuses with OPT, an array of more than 2-D)
    try
      got = norm (g, p, o);
    catch err
      if (strncmp (err.identifier, "gpudot:", 7))
        return;
      endif
      error ("%s: unexpected error [%s] %s", desc, err.identifier, err.message);
    end_try_catch
    error ("%s: answered where Octave refuses", desc);
  end_try_catch
  try
    got = norm (g, p, o);
  catch err
    if (sharded_refusal (err))
      return;
    endif
    error ("%s: refused [%s] %s where Octave answers", desc, err.identifier, err.message);
  end_try_catch
  assert (class (got), class (x), desc);
  same_exactly (isnan (got), isnan (want), desc);
  if (ischar (p))
    p = lower (p);
  endif
  keep = ! isnan (want);
  if (any (keep(:)) && ! (isnumeric (p) && p < 0 && p > -Inf))
    try
      if (d == 2)
        check_norm (x(keep, :), p, {2}, "double", "auto", got(keep));
      else
        check_norm (x(:, keep), p, {1}, "double", "auto", got(keep));
      endif
    catch err
      error ("%s: %s", desc, err.message);
    end_try_catch
  endif
endfunction

## ---- gsearch ----
## Q against D (single or double, special values, zero and repeated columns), k from 0 to
## past n or none, each metric and mode: the scores within the mode's bound of Octave's
## D' * Q (in double, over the norms), and the indices those of Octave's stable sort of the
## same call's every score.
function desc = case_search (devices)
  G = fuzz_operands ();
  cls = ifelse (rand () < 0.5, "single", "double");
  d = randi ([0 40]);
  n = randi ([0 300]);
  m = randi ([0 12]);
  D = cast (G.random_values ([d n], strcmp (cls, "single")), cls);
  Q = cast (G.random_values ([d m], strcmp (cls, "single")), cls);
  if (n > 2 && rand () < 0.3)
    D(:, randi (n)) = 0;
    D(:, 2) = D(:, 1);
  endif
  if (m > 0 && n > 0 && rand () < 0.3)
    Q(:, 1) = D(:, randi (n));
  endif
  args = {};
  cosine = rand () < 0.7;
  if (! cosine)
    args(end+1:end+2) = {"metric", G.random_case("dot")};
  endif
  native = false;
  if (rand () < 0.3)
    modes = {"native", "double", "compensated"};
    mode = modes{randi(3)};
    native = strcmp (mode, "native");
    args(end+1:end+2) = {"Accum", G.random_case(mode)};
  endif
  dev = devices{randi(numel (devices))};
  if (! strcmp (dev, "auto") || rand () < 0.5)   # (no "device": gsearch's fast path)
    args(end+1:end+2) = {"device", dev};
  endif
  if (rand () < 0.2)
    args(end+1:end+2) = {"output", "garray"};
  endif
  DD = D;
  if (rand () < 0.5 && ! strcmp (dev, "cpu"))
    DD = garray (D);
  endif
  k = [];
  if (rand () < 0.8)
    k = randi ([0, n + 2]);
    if (rand () < 0.1)
      k = randi ([250 300]);
    endif
  endif
  ## the wide tile's own selection of the best k forced on or off, or by query count
  fuse = {"", "0", "1"}{randi(3)};
  if (isempty (fuse))
    unsetenv ("GPUDOT_SEARCH_FUSE");
  else
    setenv ("GPUDOT_SEARCH_FUSE", fuse);
  endif
  desc = sprintf ("gsearch (%s, %s, %s%s) GPUDOT_SEARCH_FUSE=%s", describe (Q, Q), describe (D, DD), mat2str (k), show_args (args), fuse);
  dump (Q, D, args);
  S = gather (gsearch (Q, DD, args{:}));
  ## the reference: exact products of singles and double sums, as the double mode
  R = double (D)' * double (Q);
  if (cosine)   # each column scaled by a power of two first (exact: no overflow, and
                # subnormal columns keep their bits), then D' * Q over the norms
    Ds = G.scale_columns (double (D));
    Qs = G.scale_columns (double (Q));
    R = (Ds' * Qs) ./ (sqrt (sumsq (Ds, 1))' .* sqrt (sumsq (Qs, 1)));
    R(R > 1) = 1;
    R(R < -1) = -1;
    R(:, sumsq (Qs, 1) == 0) = NaN;
    R(sumsq (Ds, 1) == 0, :) = NaN;
  endif
  same_exactly (size (S), [n m], desc);
  same_exactly (class (S), cls, desc);
  acc_single = native && strcmp (cls, "single");
  u = ifelse (acc_single, 2^-24, 2^-53);
  if (cosine)
    tol = 2 * eps (cls) + 2 * (d + 4) * u + zeros (n, m);
  else
    ## plus each product's underflow (a subnormal's worth) where the accumulator loses it
    mag = abs (double (D))' * abs (double (Q));
    tol = 2 * eps (cls) * abs (R) + (d + 2) * (u * mag + ifelse (acc_single, 2^-149, 2^-1074));
  endif
  Sd = double (S);
  ok = (isnan (R) & isnan (Sd)) | Sd == R | abs (Sd - R) <= tol;
  if (! cosine)
    ## past the class's range the answer is the class's overflow (native single sums
    ## overflow inside too), and Octave's double D' * Q may overflow where ours does not
    lim = realmax (cls) * (1 - 1e-6);
    big = abs (R) >= lim | (acc_single & mag >= lim) | ! isfinite (R);
    ok |= big & (! isfinite (Sd) | abs (Sd) >= lim | acc_single | ! isfinite (R));
  endif
  if (! all (ok(:)))
    e = find (! ok, 1);
    error ("%s: score %d is %.17g, Octave %.17g (tol %g)", desc, e, Sd(e), R(e), tol(e));
  endif
  if (! isempty (k))
    [Sk, Ik] = gsearch (Q, DD, k, args{:});
    [Sk, Ik] = gather (Sk, Ik);
    kk = min (k, n);
    [~, ord] = sort (-Sd, 1);
    same_exactly (Ik, ord(1:kk, :), desc);
    same_exactly (Sk, S(sub2ind ([n m], Ik, repmat (1:m, kk, 1))), desc);
  endif
endfunction

## GPUDOT_FUZZ_DUMP=FILE keeps a case's operands (x, y: the host data; args: the call's
## other arguments) in FILE before the call, to study a mismatch away from the fuzzer
function dump (x, y, args)
  f = getenv ("GPUDOT_FUZZ_DUMP");
  if (! isempty (f))
    x = gather (x);           # (garrays do not save)
    y = gather (y);
    args = cellfun (@gather, args, "uniformoutput", false);
    save ("-binary", f, "x", "y", "args");
  endif
endfunction

## ---- rules and comparisons ----

function tf = is_garrayable (x)
  tf = isfloat (x) && ! issparse (x);
endfunction

function tf = accepts (x)
  tf = isnumeric (x) && ! islogical (x) && ! ischar (x);
endfunction

## gdot's rule: sizes equal or 1 in each dimension, or (no DIM) two vectors of one length
function tf = compatible (x, y, dimargs)
  if (isempty (dimargs) && isvector (x) && isvector (y) && numel (x) == numel (y))
    tf = true;
    return;
  endif
  a = size (x);  b = size (y);
  n = max (numel (a), numel (b));
  a(end+1:n) = 1;  b(end+1:n) = 1;
  tf = all (a == b | a == 1 | b == 1);
endfunction

function x = to_ref (x)
  if (isinteger (x))
    x = double (x);
  elseif (issparse (x))
    x = full (x);
  endif
endfunction

function n = sum_len (x, dimargs)
  if (isempty (dimargs))
    n = max ([size(x) 1]);
  else
    n = size (x, dimargs{1});
  endif
endfunction

function same_exactly (got, want, desc)
  if (! (isequal (class (got), class (want)) && isequal (size (got), size (want))
         && isequaln (got, want)))
    error ("%s: got %s %s %s, Octave %s %s %s", desc, class (got), mat2str (size (got)),
           short (got), class (want), mat2str (size (want)), short (want));
  endif
endfunction

## values of one reduction over n terms within n roundings of the class (and of the
## double reference), relative to the sum of magnitudes mag
function same_within (got, want, mag, n, desc)
  if (! (isequal (class (got), class (want)) && isequal (size (got), size (want))))
    error ("%s: got %s %s, Octave %s %s", desc, class (got), mat2str (size (got)), class (want),
           mat2str (size (want)));
  endif
  ## real and imaginary parts apart (an infinite part leaves the other's bound intact);
  ## Octave's single sums accumulate in single, so a single result gets single's bound
  u = ifelse (isa (want, "single"), 2^-24, 2^-53);
  uacc = ifelse (isa (want, "single"), 2^-24, 2^-52);
  for part = {@real, @imag}
    g = double (part{1} (got));
    r = double (part{1} (want));
    tol = (n + 2) * uacc * double (mag) + 2 * u * abs (r);
    ok = abs (g - r) <= tol | (isnan (r) & isnan (g)) | g == r;
    if (! all (ok(:)))
      k = find (! ok, 1);
      error ("%s: got %.17g, Octave %.17g (%s part), tol %g", desc, g(k), r(k),
             func2str (part{1}), tol(k));
    endif
  endfor
endfunction

function s = short (v)
  if (isnumeric (v) || islogical (v))
    s = mat2str (double (v(1:min (end, 6)))(:)', 6);
  else
    s = class (v);
  endif
endfunction

function s = describe (x, xx)
  s = sprintf ("%s%s %s", ifelse (isa (xx, "garray"), "garray ", ""),
               ifelse (issparse (x), ["sparse " class(x)], class (x)), mat2str (size (x)));
  if (iscomplex (x))
    s = ["complex " s];
  endif
endfunction

function s = show (v)
  if (ischar (v))
    s = ["\"" v "\""];
  elseif (isnumeric (v) || islogical (v))
    if (numel (v) > 8)
      s = sprintf ("<%s %s>", class (v), mat2str (size (v)));
    else
      s = mat2str (v);
    endif
  else
    s = class (v);
  endif
endfunction

function s = show_args (a)
  s = "";
  for i = 1:numel (a)
    s = [s ", " show(a{i})];
  endfor
endfunction
