## -*- texinfo -*-
## @deftypefn {} {[@var{ok}, @var{bad}, @var{errs}] =} fuzz_gpudot (@var{seed}, @var{ncalls}, @var{devices})
## Seeded random calls of gdot, gnorm, gcosine and garray: classes including integer,
## logical, char, cell, struct, function handles, sparse, complex, NaN/Inf, empty and odd
## dims; good, bad and odd options; wrong argument counts; garray/host mixes.  Every call
## must either match a reference computed in Octave (the check_* helpers) or raise an error
## whose identifier is gpudot:* (or Octave:invalid-fun-call for a wrong argument count).
## Returns the number of calls that behaved, those that did not, and their messages.
## @end deftypefn

function [ok, bad, errs] = fuzz_gpudot (seed, ncalls, devices = {"cpu"})

  rand ("seed", seed);  randn ("seed", seed);
  ok = bad = 0;
  errs = {};
  warning ("off", "gpudot:noDevice");
  fns = {"gdot", "gnorm", "gcosine"};
  for c = 1:ncalls
    fn = fns{randi(3)};
    x = random_operand ();
    y = x;
    if (rand () < 0.6)               # compatible sizes most of the time
      y = random_like (x);
    elseif (rand () < 0.5)
      y = random_operand ();
    endif
    [opts, dimargs, accum, device, p] = random_options (fn, devices);
    wrap = rand ();
    args = {};
    try
      xx = x;  yy = y;
      if (wrap < 0.15 && isfloat (x) && ! issparse (x))
        xx = garray (x);
      elseif (wrap < 0.3 && isfloat (y) && ! issparse (y))
        yy = garray (y);
      endif
      if (strcmp (fn, "gnorm"))
        args = [{xx}, p, dimargs, opts];
      else
        args = [{xx, yy}, dimargs, opts];
      endif
      if (rand () < 0.03)
        args = args(1:max (0, randi (numel (args)) - 1));     # too few arguments
      endif
      feval (fn, args{:});          # the call itself: it must not crash
      ## it returned: the same call through the checking helper must agree with a reference
      if (numel (args) >= ifelse (strcmp (fn, "gnorm"), 1, 2) && valid_for_ref (x, y, fn))
        xr = to_ref (x);  yr = to_ref (y);
        switch (fn)
          case "gdot"
            check_dot (xr, yr, dimargs, accum, device, false);
          case "gnorm"
            pp = 2;
            if (! isempty (p))
              pp = p{1};
            endif
            check_norm (xr, pp, dimargs, accum, device);
          case "gcosine"
            check_cosine (xr, yr, dimargs, accum, device);
        endswitch
      endif
      ok++;
    catch err
      if (strncmp (err.identifier, "gpudot:", 7)
          || (strcmp (err.identifier, "Octave:invalid-fun-call") && numel (args) < 2))
        ok++;
      else
        bad++;
        errs{end+1} = sprintf ("call %d %s (x %s %s, y %s %s, dim %s): [%s] %s", c, fn,
                               class (x), mat2str (size (x)), class (y), mat2str (size (y)),
                               disp_dim (dimargs), err.identifier, err.message);
      endif
    end_try_catch
  endfor

endfunction

function x = random_operand ()
  k = randi (16);
  sizes = {[1 1], [5 1], [1 7], [4 3], [3 4 2], [0 3], [3 0], [0 0], [1 0], [2 1 3 1 2], [33 2], [1 1 5]};
  sz = sizes{randi(numel (sizes))};
  if (rand () < 0.04)                 # huge and odd: long runs, many dims, wide rows
    huge = {[2^17+3 1], [1 2^16+5], [3 2^12+1], [2^12+7 3], [1 1 1 1 1 1 1 1 2], [2 1 1 1 1 1 3]};
    sz = huge{randi(numel (huge))};
  endif
  switch (k)
    case {1, 2, 3, 4}
      x = randn (sz);
    case {5, 6}
      x = single (randn (sz));
    case 7
      x = complex (randn (sz), randn (sz));
    case 8
      x = single (complex (randn (sz), randn (sz)));
    case 9
      x = int8 (randi ([-100 100], sz));
    case 10
      if (rand () < 0.5)
        x = uint16 (randi (1000, sz));
      else
        x = int32 (randi ([-1000 1000], sz));
      endif
    case 11
      x = randn (sz) > 0;                           # logical
    case 12
      others = {"abc", {1, 2}, struct("a", 1), @sin};
      x = others{randi(4)};
    case 13
      x = sparse (randn (sz) .* (rand (sz) > 0.5));
    case 14
      specials = [NaN Inf -Inf];
      x = randn (sz);  x(rand (sz) < 0.2) = specials(randi (3));
    case 15
      scales = [1e200 1e-200 1e-310];
      x = randn (sz) * scales(randi (3));
    otherwise
      scales = single ([1e30 1e-30]);
      x = single (randn (sz)) * scales(randi (2));
  endswitch
endfunction

function y = random_like (x)
  if (! isnumeric (x) && ! islogical (x))
    y = randn (size (x));
    return;
  endif
  sz = size (x);
  if (rand () < 0.3 && numel (sz) >= 2)
    sz(randi (numel (sz))) = 1;                     # broadcast along one dim
  endif
  y = randn (sz);
  if (rand () < 0.3)
    y = single (y);
  endif
  if (rand () < 0.3)
    y = complex (y, randn (sz));
  endif
endfunction

function [opts, dimargs, accum, device, p] = random_options (fn, devices)
  accums = {"native", "double", "compensated"};
  accum = accums{randi(3)};
  device = devices{randi (numel (devices))};
  dimargs = {};
  p = {};
  if (strcmp (fn, "gnorm") && rand () < 0.7)
    ps = {2, 1, Inf, -Inf, 0, 3, 0.5, -1.5, "fro", "inf", "bad", 1i, [1 2], NaN};
    p = ps(randi (numel (ps)));
  endif
  r = rand ();
  if (r < 0.4)
    dimargs = {randi(4)};
  elseif (r < 0.45)
    bad = {0, -1, 1.5, [1 2], 1i, Inf, true, 9, 65, 2^40, NaN, "x"};
    dimargs = bad(randi (numel (bad)));
  endif
  opts = {"accum", accum, "device", device};
  r = rand ();
  if (r < 0.05)
    opts = {"accum"};                               # odd count
  elseif (r < 0.1)
    opts = {"colour", "red"};
  elseif (r < 0.15)
    opts = {"accum", "quad"};
  elseif (r < 0.2)
    opts = {"device", 3};
  elseif (r < 0.35)
    opts = {};
    accum = "double";
    device = "auto";
  endif
endfunction

## Calls the reference helpers can judge: numeric inputs with finite, moderate values
function tf = valid_for_ref (x, y, fn)
  tf = isnumeric (x) && (strcmp (fn, "gnorm") || isnumeric (y));
endfunction

function x = to_ref (x)
  if (isinteger (x))
    x = double (x);
  elseif (issparse (x))
    x = full (x);
  endif
endfunction

function s = disp_dim (dimargs)
  if (isempty (dimargs))
    s = "none";
  else
    s = mat2str (dimargs{1});
  endif
endfunction
