## Copyright (C) 2026 gpudot developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{G} =} fuzz_operands ()
## The differential fuzzer's draws (tests/fuzz_diff.m), as a struct of function handles:
## operands of every class, shape and kind of value (@code{random_operand},
## @code{random_values}, @code{partner}: a second operand), DIM, options, p and indices
## (@code{random_dim}, @code{random_options}, @code{random_case}, @code{random_p},
## @code{random_subs}), columns scaled to their top octave (@code{scale_columns}), and
## garrays, some in pieces (@code{make_garray}).  Each draws from Octave's @code{rand} and
## @code{randn} states, which the fuzzer seeds a case at a time.
## @end deftypefn

function G = fuzz_operands ()
  persistent g;
  if (isempty (g))
    g = struct ("random_operand", @random_operand, "random_values", @random_values,
                "partner", @partner, "random_dim", @random_dim,
                "random_options", @random_options, "random_case", @random_case,
                "random_p", @random_p, "random_subs", @random_subs,
                "scale_columns", @scale_columns, "make_garray", @make_garray);
  endif
  G = g;
endfunction

function x = random_operand (any_class)
  shapes = {[1 1], [1 1], [5 1], [1 7], [4 3], [3 4], [3 4 2], [2 1 3 1 2], [33 2], [1 1 5], ...
            [0 0], [0 3], [3 0], [1 0], [0 1], [0 3 2], [2 0 3], [130 3], [1 300]};
  sz = shapes{randi(numel (shapes))};
  if (rand () < 0.02)
    sz = {[2^14+3 1], [1 2^13+5], [3 2^10+1], [64 4100]}{randi(4)};
  endif
  classes = {"double", "double", "double", "single", "single", "cdouble", "csingle"};
  if (any_class)
    classes = [classes, {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", ...
                         "uint64", "logical", "char", "sparse", "csparse", "other"}];
  endif
  cls = classes{randi(numel (classes))};
  v = random_values (sz, any (strcmp (cls, {"single", "csingle"})));
  switch (cls)
    case {"double", "single"}
      x = cast (v, cls);
    case "cdouble"
      x = complex (v, random_values (sz, false));
      x = tied_magnitudes (x);
    case "csingle"
      x = single (complex (v, random_values (sz, true)));
      x = tied_magnitudes (x);
    case {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"}
      lim = min (double (intmax (cls)), 1000);
      x = cast (randi ([-lim lim], sz), cls);   # saturates below 0 for unsigned
      if (rand () < 0.2 && numel (x) > 0)
        x(randi (numel (x))) = intmax (cls);     # exact in double up to 32 bits
        x(randi (numel (x))) = intmin (cls);
        if (any (strcmp (cls, {"int64", "uint64"})))
          x = cast (randi ([-lim lim], sz), cls);
        endif
      endif
    case "logical"
      x = rand (sz) > 0.5;
    case "other"
      others = {{1, 2}, struct("a", 1), @sin, "abc"};
      x = others{randi(numel (others))};
    case "char"
      x = char (randi ([32 126], sz));
    case {"sparse", "csparse"}
      if (numel (sz) > 2)
        sz = sz(1:2);
      endif
      v = random_values (sz, false) .* (rand (sz) > 0.5);
      if (strcmp (cls, "csparse"))
        v = complex (v, randn (sz) .* (v != 0));
      endif
      x = sparse (v);
  endswitch
endfunction

## values of a regime drawn per operand: plain, special values sprinkled, subnormal, near
## overflow or underflow, cancelling pairs, small integers
function v = random_values (sz, single_range)
  v = randn (sz);
  n = prod (sz);
  if (n == 0)
    return;
  endif
  big = ifelse (single_range, 1e37, 1e300);
  tiny = ifelse (single_range, 1e-37, 1e-300);
  sub = ifelse (single_range, 1e-42, 1e-315);
  r = rand ();
  if (r < 0.15)
    sp = [NaN Inf -Inf 0 -0];
    m = rand (sz) < 0.2;
    v(m) = sp(randi (5, nnz (m), 1));
  elseif (r < 0.22)
    v *= sub;
  elseif (r < 0.30)
    v *= big * ifelse (rand () < 0.5, 1, 10);   # (1e38: sums of a few singles pass realmax)
  elseif (r < 0.36)
    v *= tiny;
  elseif (r < 0.44 && n >= 2)
    h = floor (n / 2);
    a = randn (h, 1) * 10 .^ randi ([-5 5]);
    v(1:h) = a;
    v(h+1:2*h) = -a(randperm (h));
  elseif (r < 0.50)
    v = round (v * 8);
  elseif (r < 0.55)
    v(:) = ifelse (rand () < 0.5, 0, -0);
  elseif (r < 0.62)
    ## full significands over 12 octaves: products through every octave of the CPU lanes'
    ## windows (a top 2^7 above the first block's largest, 2^30 deep for doubles)
    v = (1 + rand (sz)) .* 2 .^ -randi ([0 12], sz) .* sign (randn (sz));
  elseif (r < 0.68)
    ## zeros among finite values (ReLU's outputs, sparse data), which the exact mode's
    ## fast paths take in their blocks
    v(rand (sz) < rand ()) = ifelse (rand () < 0.8, 0, -0);
  endif
endfunction

## sometimes complex values whose magnitudes tie or nearly tie (small integers, where
## |3+4i| = 5; subnormal singles, of few significant bits), or a value half Inf, half NaN
function x = tied_magnitudes (x)
  r = rand ();
  sz = size (x);
  if (r < 0.1)
    x = complex (cast (round (randn (sz) * 8), class (x)), round (randn (sz) * 8));
  elseif (r < 0.15)
    s = ifelse (isa (x, "single"), 1e-42, 1e-315);
    x = complex (cast (randn (sz) * s, class (x)), cast (randn (sz) * s, class (x)));
  elseif (r < 0.2 && numel (x) > 1)
    k = randi (numel (x));
    re = real (x);
    im = imag (x);
    if (rand () < 0.5)
      re(k) = Inf * sign (randn ());
      im(k) = NaN;
    else
      re(k) = NaN;
      im(k) = Inf * sign (randn ());
    endif
    x = complex (re, im);
  endif
endfunction

## a second operand: the same size, broadcast along some dimensions, the other orientation
## of a vector, or another size
function y = partner (x)
  sz = size (x);
  r = rand ();
  if (numel (x) > 4096)
    r = min (r, 0.7);         # no outer products of long vectors
  endif
  if (r < 0.55)
  elseif (r < 0.75)
    k = randi (numel (sz));
    sz(k) = 1;
  elseif (r < 0.85 && isvector (x))
    sz = fliplr (sz);
  elseif (r < 0.92)
    sz = [sz(1) 1];
  else
    sz(randi (numel (sz))) += 1;
  endif
  if (rand () < 0.75)
    y = cast (random_values (sz, isa (x, "single")), ifelse (isa (x, "single"), "single", "double"));
    if (rand () < 0.25)
      y = complex (y, randn (sz));
    endif
    if (rand () < 0.15)
      y = single (y);
    endif
  else
    y = random_operand (true);
    if (! isequal (size (y), sz) && numel (size (y)) == numel (sz) && rand () < 0.7
        && (isnumeric (y) || islogical (y) || ischar (y)))
      y = resize (y, sz);
    endif
  endif
endfunction

function [dimargs, ok] = random_dim (x)
  dimargs = {};
  ok = true;
  r = rand ();
  if (r < 0.40)
    dimargs = {randi(ndims (x) + 2)};
    if (rand () < 0.1)
      dimargs = {int32(dimargs{1})};
    elseif (rand () < 0.05)
      dimargs = {1000};           # far past ndims: no reduction
    endif
  elseif (r < 0.46)
    bad = {0, -1, 1.5, [1 2], 1i, Inf, NaN, "x", true, -2^40};
    dimargs = bad(randi (numel (bad)));
    ok = false;
  endif
endfunction

function [opts, accum, device, ok] = random_options (devices)
  accums = {"native", "double", "compensated", "exact"};
  accum = accums{randi(4)};
  device = devices{randi(numel (devices))};
  ok = true;
  opts = {random_case("accum"), random_case(accum), random_case("device"), random_case(device)};
  r = rand ();
  if (r < 0.25)
    opts = {};
    accum = "double";
    device = "auto";
  elseif (r < 0.35)
    opts = opts(1:2);
    device = "auto";
  elseif (r < 0.40)
    badopts = {{"accum"}, {"colour", "red"}, {"accum", "quad"}, {"device", 3}, {"accum", 1}};
    opts = badopts{randi(numel (badopts))};
    ok = false;
  endif
endfunction

function s = random_case (s)
  m = rand (size (s)) < 0.3;
  s(m) = upper (s(m));
endfunction

function [p, ok] = random_p ()
  ok = true;
  r = rand ();
  if (r < 0.45)
    named = {2, 1, Inf, -Inf, 0, "fro", "inf", "-inf", "Fro", "INF", "-Inf", 3, 0.5, -1, -2};
    p = named{randi(numel (named))};
  elseif (r < 0.75)
    p = randi ([-3000 3000]);
  elseif (r < 0.95)
    p = (rand () - 0.5) * 6000;
  else
    badp = {"bad", 1i, [1 2], NaN, {2}};
    p = badp{randi(numel (badp))};
    ok = false;
  endif
endfunction

function subs = random_subs (x)
  n = randi (3);
  sz = size (x);
  subs = cell (1, n);
  for k = 1:n
    if (n == 1)
      bound = numel (x);
    elseif (k < n)
      bound = ifelse (k <= numel (sz), sz(min (k, end)), 1);
    else
      bound = prod (sz(k:end));
    endif
    r = rand ();
    if (r < 0.2)
      subs{k} = ":";
    elseif (r < 0.55)
      subs{k} = randi (max (bound, 1), 1, randi (3));
    elseif (r < 0.7)
      subs{k} = rand (1, bound) > 0.5;
    elseif (r < 0.8)
      subs{k} = max (bound, 1):-1:1;
    else
      bad = {0, -1, 1.5, NaN, bound + 1, [1 bound + 2], true(1, bound + 1)};
      subs{k} = bad{randi(numel (bad))};
    endif
  endfor
endfunction

## x's columns each times the power of two that brings its largest magnitude into [0.5, 1)
function x = scale_columns (x)
  [~, e] = log2 (max (abs (x), [], 1));
  h = fix (-e / 2);                     # in two steps: 2^-e alone may overflow
  x = (x .* pow2 (h)) .* pow2 (-e - h);
endfunction

## garray (x), or where q > 0, a garray in pieces on GPU 0 (two "devices") in chunks of q
function g = make_garray (x, q)
  if (q == 0)
    g = garray (x);
    return;
  endif
  __gpudot__ ("shard_chunk", q);
  unwind_protect
    g = garray (x, "devices", [0 0]);
  unwind_protect_cleanup
    __gpudot__ ("shard_chunk", 0);
  end_unwind_protect
endfunction
