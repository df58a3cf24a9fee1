## Copyright (C) 2026 gpudot developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {@var{g} =} garray (@var{x})
## @deftypefnx {} {@var{g} =} garray (@var{x}, "devices", @var{D})
## Copy @var{x} to the GPU once, to reduce it there many times.
##
## @var{x} must be a full single or double array, real or complex, of any shape;
## logical, char, integer, sparse and non-numeric inputs give @code{gpudot:badType}.
## @code{gdot}, @code{gnorm} and @code{gcosine} accept a garray for any operand, mixed
## with host arrays (a host operand is uploaded for that call only), with every option,
## and return host results.  The main use is a resident matrix against query vectors:
##
## @example
## @group
## D = garray (single (randn (768, 1e6)));   # 3 GB, copied once
## s = gcosine (q, D);                       # 1 x 1e6 similarities, per query
## @end group
## @end example
##
## With @qcode{"devices"}, @var{x} is split across the GPUs in @var{D} (device indices from
## 0, or @qcode{"all"}; a device may repeat, for several pieces on one GPU): a vector in
## pieces of 2^22 elements, anything else between columns.  @code{gdot}, @code{gnorm} and
## @code{gcosine} then run on all of them at once, along the first dimension (a vector:
## along its length), beside host arrays or garrays of the same devices, and give the same
## bits for any list of devices: runs longer than a piece are reduced piece by piece and
## merged on the host in order.  Other dimensions, and garrays of other devices beside it,
## are errors (gather it first).
##
## @code{gather (@var{g})} returns the data bit for bit.  @code{size}, @code{numel},
## @code{ndims}, @code{rows}, @code{columns}, @code{isempty}, @code{isreal},
## @code{classUnderlying} (the element class) work, and @code{disp} shows size, element
## class and device.
##
## Device memory is freed when the last reference goes (or by @code{delete (g)}), and at
## exit; the MEX stays locked while garrays live, so @code{clear all} neither strands nor
## double-frees it.  An array larger than the device's free memory gives
## @code{gpudot:outOfMemory} with the bytes asked for and free.  Without a usable GPU the
## data stays in host memory and everything works through the CPU engine (with one
## @code{gpudot:noDevice} warning per session).  @code{gpudot_info} reports the number of
## live garrays and their bytes.
##
## Errors (identifiers): @code{gpudot:badType} (not a full single or double array, or a
## deleted garray), @code{gpudot:badOption} (a bad @qcode{"devices"}),
## @code{gpudot:noDevice} (no GPU, or no such device), @code{gpudot:badDim} (more than 64
## dimensions),
## @code{gpudot:outOfMemory} (the device cannot hold it: nothing is kept),
## @code{gpudot:cuda} (a CUDA failure, with CUDA's text; after a kernel fault, the
## garrays of the lost context cannot be read: restart Octave).  Warning:
## @code{gpudot:noDevice}.
##
## @seealso{gather, gdot, gnorm, gcosine, gpudot_info}
## @end deftypefn

classdef garray < handle

  properties (SetAccess = private, Hidden = true)
    ## What gdot, gnorm and gcosine hand to the gateway: struct ("garray_id", id) for
    ## resident data, the data itself where no GPU is usable.  Read directly by the
    ## wrappers (a property read costs far less than a method call in Octave).
    ref = struct ("garray_id", 0);
  endproperties

  ## Readable (hidden) rather than private: after `clear functions`, Octave 7 no longer
  ## lets delete read private properties of objects made before, and the memory would be
  ## stranded.
  properties (SetAccess = private, Hidden = true)
    id = 0;            # registry id in __gpudot__ (0 once deleted; ids are never reused)
    ondevice = false;  # data on the GPU (else in ref)
    dims = [0 0];
    elclass = "double";
    cplx = false;
    devices = [];      # the GPU of each shard (one entry: one GPU)
  endproperties

  methods

    function g = garray (x, varargin)
      if (nargin != 1 && nargin != 3)    # print_usage cannot find a classdef constructor's help in 7.3
        error ("Octave:invalid-fun-call", "Invalid call to garray.  Correct usage is:\n\n -- G = garray (X)\n -- G = garray (X, \"devices\", D)");
      endif
      devs = {};
      if (nargin == 3)
        if (! ischar (varargin{1}) || ! strcmpi (varargin{1}, "devices"))
          error ("gpudot:badOption", "garray: the only option is \"devices\"");
        endif
        devs = varargin(2);
      endif
      if (! isfloat (x) || issparse (x))
        error ("gpudot:badType",
               "garray: X must be a full single or double array (real or complex), not %s%s",
               ifelse (issparse (x), "sparse ", ""), class (x));
      endif
      [g.id, g.ondevice, g.devices] = __gpudot__ ("garray_new", x, devs{:});
      if (g.ondevice)
        g.ref = struct ("garray_id", g.id);
      else
        g.ref = x;
      endif
      g.dims = size (x);
      g.elclass = class (x);
      g.cplx = iscomplex (x);
    endfunction

    function delete (g)
      ## Octave may call delete more than once (explicitly, then when the last
      ## reference goes): only the first frees anything, and the gateway ignores ids it
      ## no longer holds
      if (g.id != 0)
        __gpudot__ ("garray_free", g.id);
        try
          g.id = 0;
          g.ref = struct ("garray_id", 0);   # any later use is a clear error
        catch
        end_try_catch
      endif
    endfunction

    function x = gather (g)
      __check__ (g, "gather");
      if (g.ondevice)
        x = __gpudot__ ("garray_gather", g.id);
      else
        x = g.ref;
      endif
    endfunction

    function varargout = size (g, varargin)
      [varargout{1:max (nargout, 1)}] = size (zeros (g.dims), varargin{:});
    endfunction

    function n = numel (g, varargin)
      n = prod (g.dims);
    endfunction

    function n = ndims (g)
      n = numel (g.dims);
    endfunction

    function n = rows (g)
      n = g.dims(1);
    endfunction

    function n = columns (g)
      n = g.dims(2);
    endfunction

    function tf = isempty (g)
      tf = any (g.dims == 0);
    endfunction

    function tf = isreal (g)
      tf = ! g.cplx;
    endfunction

    function c = classUnderlying (g)
      c = g.elclass;
    endfunction

    function disp (g)
      if (g.id == 0)
        printf ("  garray (deleted)\n");
        return;
      endif
      dev = "host memory (no usable GPU)";
      if (g.ondevice && numel (g.devices) > 1)
        dev = sprintf ("GPUs %s (%d shards)", strjoin (arrayfun (@num2str, unique (g.devices), "uniformoutput", false), ", "),
                       numel (g.devices));
      elseif (g.ondevice)
        s = __gpudot__ ("info");
        dev = sprintf ("GPU %d, %s", s.device, s.device_name);
      endif
      printf ("  %s %s%s garray on %s\n", strjoin (arrayfun (@num2str, g.dims, "uniformoutput", false), "x"),
              ifelse (g.cplx, "complex ", ""), g.elclass, dev);
    endfunction

    function display (g)
      printf ("%s =\n\n", inputname (1));
      disp (g);
      printf ("\n");
    endfunction

  endmethods

  methods (Access = private)
    function __check__ (g, fn)
      if (g.id == 0)
        error ("gpudot:badType", "%s: this garray has been deleted", fn);
      endif
    endfunction
  endmethods

endclassdef
