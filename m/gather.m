## Copyright (C) 2026 gpudot developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {@var{x} =} gather (@var{g})
## @deftypefnx {} {[@var{x1}, @var{x2}, @dots{}] =} gather (@var{g1}, @var{g2}, @dots{})
## Return data to the host: a garray's contents, bit for bit; any other value unchanged
## (as MATLAB's gather does for host data), so code written for garrays runs on host arrays.
##
## @example
## @group
## g = garray (single (1:5));
## x = gather (g)          # single [1 2 3 4 5] in host memory
## y = gather ([1 2 3])    # [1 2 3]
## @end group
## @end example
## @seealso{garray, gdot, gnorm, gcosine}
## @end deftypefn

function varargout = gather (varargin)

  varargout = varargin;
  for i = 1:numel (varargin)
    if (isa (varargin{i}, "garray"))
      varargout{i} = gather (varargin{i});   # the class's method
    endif
  endfor

endfunction

%!assert (gather ([1 2 3]), [1 2 3])
%!assert (gather (single (2)), single (2))
%!assert (gather ("abc"), "abc")
%!test
%! [a, b] = gather (1, {2});
%! assert (a, 1);
%! assert (b, {2});
%!test
%! warning ("off", "gpudot:noDevice", "local");
%! [a, b] = gather (garray ([1 2]), 3);
%! assert (a, [1 2]);
%! assert (b, 3);
