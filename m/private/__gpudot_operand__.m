## Copyright (C) 2026 gpudot developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{x} =} __gpudot_operand__ (@var{fn}, @var{name}, @var{x})
## Checks one numeric operand and converts it to what the engine takes: integers to
## double (exact product sums), sparse to full, garrays to what the gateway takes.
## Internal.
## @end deftypefn

function x = __gpudot_operand__ (fn, name, x)

  if (isa (x, "garray"))
    x = x.ref;
    return;
  elseif (isstruct (x) && isscalar (x) && isfield (x, "garray_id"))
    return;                     # already a garray reference (gdot's fast path)
  endif
  if (! isnumeric (x))
    error ("gpudot:badType", "%s: %s must be a numeric array (single, double, integer), not %s",
           fn, name, class (x));
  endif
  if (isinteger (x))
    x = double (x);
  elseif (issparse (x))
    x = full (x);
  endif

endfunction
