## Copyright (C) 2026 gpudot developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{dim}, @var{accum}, @var{device}, @var{kernel}] =} __gpudot_args__ (@var{fn}, @var{args})
## Parses the trailing arguments shared by gpudot's functions: an optional numeric
## @var{dim}, then name/value pairs @code{"accum"}, @code{"device"} and (gdot only)
## @code{"kernel"} (empty when absent).  Internal.
## @end deftypefn

function [dim, accum, device, kernel] = __gpudot_args__ (fn, args)

  dim = [];
  kernel = "";
  accum = "double";
  device = "auto";
  if (! isempty (args) && ! ischar (args{1}))
    dim = args{1};
    if (! (isnumeric (dim) && isreal (dim) && isscalar (dim) && dim >= 1
           && dim == fix (dim) && isfinite (dim)))
      error ("gpudot:badDim", "%s: DIM must be a positive integer scalar", fn);
    endif
    dim = double (dim);
    args(1) = [];
  endif
  if (mod (numel (args), 2) != 0)
    error ("gpudot:badOption", "%s: options must come in name/value pairs", fn);
  endif
  for i = 1:2:numel (args)
    name = args{i};
    value = args{i+1};
    if (! ischar (name) || ! isrow (name))
      error ("gpudot:badOption", "%s: option names must be strings", fn);
    endif
    switch (lower (name))
      case "accum"
        if (! ischar (value) || ! any (strcmp (value, {"native", "double", "compensated"})))
          error ("gpudot:badOption",
                 "%s: \"accum\" must be \"native\", \"double\" or \"compensated\"", fn);
        endif
        accum = value;
      case "device"
        if (! ischar (value) || ! any (strcmp (value, {"auto", "gpu", "cpu"})))
          error ("gpudot:badOption",
                 "%s: \"device\" must be \"auto\", \"gpu\" or \"cpu\"", fn);
        endif
        device = value;
      case "kernel"
        if (! strcmp (fn, "gdot"))
          error ("gpudot:badOption", "%s: unknown option \"%s\"", fn, name);
        elseif (! ischar (value)
                || ! any (strcmp (value, {"atomic", "shared", "shuffle", "vector", "fused"})))
          error ("gpudot:badOption", ["%s: \"kernel\" must be \"atomic\", \"shared\", " ...
                                      "\"shuffle\", \"vector\" or \"fused\""], fn);
        endif
        kernel = value;
      otherwise
        error ("gpudot:badOption", "%s: unknown option \"%s\"", fn, name);
    endswitch
  endfor

endfunction
