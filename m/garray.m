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
## along its length) or a matrix's second, beside host arrays or garrays of the same
## devices, and give the same bits for any list of devices: runs longer than a piece, and
## rows, are reduced piece by piece and merged on the host in order.  Other dimensions, and
## garrays of other devices beside it, are errors (gather it first).
##
## A garray is used like an array where that needs no arithmetic: @code{g(i, j)} with any
## subscripts (ranges, colons, @code{end}, logical masks) gives a new garray of the
## selection, made on the device; @code{size}, @code{numel} (1 on Octave 8 to 10, whose
## indexing of classdef objects relies on it: @code{prod (size (g))} there),
## @code{length}, @code{ndims},
## @code{rows}, @code{columns}, @code{isempty}, @code{isreal}, @code{isvector},
## @code{classUnderlying} (the element class) work; @code{double (g)}, @code{single (g)}
## and @code{gather (g)} return host arrays (gather bit for bit); @code{isequal} compares
## contents; @code{garray (g)} copies; displaying one shows where it lives and, for up to
## 1000 elements, its values.  Octave's @code{dot}, @code{norm} (vector norms, and
## @code{"fro"}, 1 and Inf of a matrix), @code{vecnorm} and @code{sum} run on the device
## when given garrays.  Arithmetic, comparisons, concatenation and assignment need host
## data: they give @code{gpudot:gatherFirst}.  @code{save} keeps no data of a garray
## (Octave 7 refuses it, later releases save a struct of its properties): save
## @code{gather (g)}.
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
## dimensions), @code{gpudot:outOfMemory} (a device cannot hold it: nothing is kept),
## @code{gpudot:gatherFirst} (an operation that needs host data),
## @code{Octave:index-out-of-bounds} (a subscript past its dimension), @code{gpudot:cuda}
## (a CUDA failure, with CUDA's text; after a kernel fault CUDA is lost to the process and
## garrays cannot be read: restart Octave).  Warning: @code{gpudot:noDevice}.
##
## @seealso{gather, gdot, gnorm, gcosine, gpudot_info, gpudot_gpu_available}
## @end deftypefn

classdef garray < handle

  properties (Constant, Hidden = true)
    ## numel (g) may be the element count: Octave 7 sizes indexing by numel (g, idx...),
    ## Octave 11 by numArgumentsFromSubscript
    numel_counts = ! compare_versions (OCTAVE_VERSION, "8", ">=") || compare_versions (OCTAVE_VERSION, "11", ">=");
  endproperties

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
      if (isa (x, "garray"))          # a copy
        x = gather (x);
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

    function varargout = gather (varargin)
      ## any number of values: garrays' data to the host, the rest as they are
      varargout = varargin;
      for i = 1:numel (varargin)
        g = varargin{i};
        if (isa (g, "garray"))
          __check__ (g, "gather");
          if (g.ondevice)
            varargout{i} = __gpudot__ ("garray_gather", g.id);
          else
            varargout{i} = g.ref;
          endif
        endif
      endfor
    endfunction

    function varargout = size (g, varargin)
      d = g.dims;
      if (nargin > 1)
        k = [varargin{:}];
        d(end+1:max (k)) = 1;
        d = d(k);
      elseif (nargout > 1)
        d(end+1:nargout) = 1;
        d = [d(1:nargout-1) prod(d(nargout:end))];
      endif
      if (nargout <= 1)
        varargout = {d};
      else
        varargout = num2cell (d);
      endif
    endfunction

    function n = numel (g, varargin)
      ## the element count; with indices, the one value an indexing gives.  Octave 8 to 10
      ## size every g.(...) and g(...) by numel (g) once subsref is overloaded (9.4: g.id
      ## failed, clear all left garrays alive): there it stays 1
      if (nargin > 1 || ! garray.numel_counts)
        n = 1;
      else
        n = prod (g.dims);
      endif
    endfunction

    ## Octave 9 and later ask this, not numel, how many values an indexing gives (with numel
    ## alone, g.id asked for numel (g) outputs and clear all left garrays undeleted)
    function n = numArgumentsFromSubscript (g, s, ctx)
      n = 1;
    endfunction

    function n = length (g)
      n = ifelse (any (g.dims == 0), 0, max (g.dims));
    endfunction

    function e = end (g, k, n)
      d = g.dims;
      if (n == 1)
        e = prod (d);
      elseif (k < n)
        d(end+1:k) = 1;
        e = d(k);
      else
        d(end+1:k) = 1;
        e = prod (d(k:end));
      endif
    endfunction

    ## g(...): a new garray of the selection, made on the device
    function varargout = subsref (g, s)
      switch (s(1).type)
        case "()"
          __check__ (g, "index");
          [L, sz] = __garray_index__ (g.dims, s(1).subs);
          if (! g.ondevice)
            r = garray (reshape (g.ref(L), sz));
          elseif (numel (g.devices) > 1)   # on several GPUs: through the host
            x = gather (g);
            r = garray (reshape (x(L), sz), "devices", g.devices);
          else
            r = garray.from_id (__gpudot__ ("garray_index", g.id, L, sz), sz, g.elclass,
                                g.cplx, g.devices);
          endif
          if (numel (s) > 1)
            [varargout{1:max (nargout, 1)}] = subsref (r, s(2:end));
          else
            varargout = {r};
          endif
        case "."
          [varargout{1:max (nargout, 1)}] = builtin ("subsref", g, s);
        otherwise
          error ("gpudot:badType", "garray: only () indexing is defined (a garray is not a cell)");
      endswitch
    endfunction

    function g = subsasgn (g, s, v)
      error ("gpudot:gatherFirst", "garray: assignment into a garray is not supported; x = gather (g) first");
    endfunction

    function x = double (g)
      x = double (gather (g));
    endfunction

    function x = single (g)
      x = single (gather (g));
    endfunction

    function tf = isequal (varargin)
      for i = 1:numel (varargin)
        if (isa (varargin{i}, "garray"))
          varargin{i} = gather (varargin{i});
        endif
      endfor
      tf = isequal (varargin{:});
    endfunction

    function tf = isa (g, cls)
      tf = any (strcmp (cls, {"garray", "handle", "float", "numeric"}));
    endfunction

    function tf = isfloat (g)
      tf = true;
    endfunction

    function tf = isnumeric (g)
      tf = true;
    endfunction

    function tf = iscomplex (g)
      tf = g.cplx;
    endfunction

    function tf = isvector (g)
      tf = numel (g.dims) == 2 && any (g.dims == 1) && prod (g.dims) >= 1;
    endfunction

    function tf = isscalar (g)
      tf = prod (g.dims) == 1;
    endfunction

    ## Octave's reductions on garrays run on the device, with their semantics
    function d = dot (x, y, varargin)
      d = gdot (x, y, varargin{:});
    endfunction

    function n = vecnorm (x, p = 2, varargin)
      n = gnorm (x, p, varargin{:});
    endfunction

    function n = norm (x, p = 2, opt = "")
      if (! isempty (opt))
        if (any (strcmpi (opt, {"rows"})))
          n = gnorm (x, p, 2);
        elseif (any (strcmpi (opt, {"columns", "cols"})))
          n = gnorm (x, p, 1);
        else
          error ("gpudot:badOption", "norm: OPT must be \"rows\", \"columns\" or \"cols\"");
        endif
        return;
      endif
      if (ischar (p) && strcmpi (p, "fro"))
        n = gnorm (x, "fro");
      elseif (numel (x.dims) == 2 && any (x.dims == 1) || any (x.dims == 0))
        n = gnorm (x, p);
        if (isempty (n))
          n = zeros (1, 1, x.elclass);
        endif
        n = n(1);
      elseif (isnumeric (p) && p == 1)
        n = max (gnorm (x, 1, 1));
      elseif ((isnumeric (p) && p == Inf) || (ischar (p) && strcmpi (p, "inf")))
        n = max (gnorm (x, 1, 2));
      else
        error ("gpudot:gatherFirst",
               "norm: this matrix norm of a garray needs its singular values; norm (gather (A), ...)");
      endif
    endfunction

    function s = sum (x, varargin)
      if (numel (varargin) > 1 || (numel (varargin) == 1 && ! isnumeric (varargin{1})))
        error ("gpudot:gatherFirst", "sum: a garray takes sum (g) or sum (g, dim); sum (gather (g), ...) for more");
      endif
      if (isempty (varargin) && isequal (x.dims, [0 0]))
        s = zeros (1, 1, x.elclass);
      else
        s = gdot (ones (1, 1, x.elclass), x, varargin{:});
      endif
    endfunction

    ## everything else needs the data on the host
    function r = plus (varargin),     r = garray.host_only ("+"); endfunction
    function r = minus (varargin),    r = garray.host_only ("-"); endfunction
    function r = times (varargin),    r = garray.host_only (".*"); endfunction
    function r = mtimes (varargin),   r = garray.host_only ("*"); endfunction
    function r = rdivide (varargin),  r = garray.host_only ("./"); endfunction
    function r = ldivide (varargin),  r = garray.host_only (".\\"); endfunction
    function r = mrdivide (varargin), r = garray.host_only ("/"); endfunction
    function r = mldivide (varargin), r = garray.host_only ("\\"); endfunction
    function r = power (varargin),    r = garray.host_only (".^"); endfunction
    function r = mpower (varargin),   r = garray.host_only ("^"); endfunction
    function r = uminus (varargin),   r = garray.host_only ("unary -"); endfunction
    function r = uplus (varargin),    r = garray.host_only ("unary +"); endfunction
    function r = not (varargin),      r = garray.host_only ("!"); endfunction
    function r = and (varargin),      r = garray.host_only ("&"); endfunction
    function r = or (varargin),       r = garray.host_only ("|"); endfunction
    function r = eq (varargin),       r = garray.host_only ("=="); endfunction
    function r = ne (varargin),       r = garray.host_only ("!="); endfunction
    function r = lt (varargin),       r = garray.host_only ("<"); endfunction
    function r = le (varargin),       r = garray.host_only ("<="); endfunction
    function r = gt (varargin),       r = garray.host_only (">"); endfunction
    function r = ge (varargin),       r = garray.host_only (">="); endfunction
    function r = transpose (varargin),  r = garray.host_only (".'"); endfunction
    function r = ctranspose (varargin), r = garray.host_only ("'"); endfunction
    function r = horzcat (varargin),  r = garray.host_only ("[ , ]", true); endfunction
    function r = vertcat (varargin),  r = garray.host_only ("[ ; ]", true); endfunction
    function r = cat (varargin),      r = garray.host_only ("cat", true); endfunction
    function r = abs (varargin),      r = garray.host_only ("abs"); endfunction

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
      ## the values too where they are few, as for host arrays
      if (prod (g.dims) > 0 && prod (g.dims) <= 1000)
        printf ("\n");
        disp (gather (g));
      endif
    endfunction

    function display (g)
      printf ("%s =\n\n", inputname (1));
      disp (g);
      printf ("\n");
    endfunction

  endmethods

  methods (Static, Hidden = true)
    ## a garray object for a registry entry the gateway made (indexing)
    function g = from_id (id, sz, elclass, cplx, devices)
      g = garray ([]);     # an empty placeholder, replaced below
      __gpudot__ ("garray_free", g.id);
      g.id = id;
      g.ondevice = true;
      g.ref = struct ("garray_id", id);
      g.dims = sz;
      g.elclass = elclass;
      g.cplx = cplx;
      g.devices = devices;
    endfunction

    function r = host_only (op, concat = false)
      r = [];
      msg = sprintf ("garray: %s is not defined for garrays, which hold data for gdot, gnorm and gcosine; gather (g) returns it to the host",
                     op);
      if (concat)
        ## Octave's [g, h] replaces a horzcat method's error by "garray/horzcat method
        ## failed": the warning says why
        warning ("gpudot:gatherFirst", "%s", msg);
      endif
      error ("gpudot:gatherFirst", "%s", msg);
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

%!demo
%! ## Everyday use: keep data on the GPU, reduce it many times, index it, bring it back
%! D = garray (single (rand (256, 5000)));
%! q = single (rand (256, 1));
%! s = gcosine (q, D);                 # 1 x 5000, the data read on the device
%! [~, k] = max (s);
%! best = gather (D(:, k));            # one column back to the host
%! printf ("best column %d, norm %.3f; %d garrays alive\n", k, norm (best), gpudot_info ().garrays);
%! disp (D(1:3, 1:2))

