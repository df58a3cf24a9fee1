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
## rows, are reduced piece by piece and merged on the host in order.  Other dimensions,
## garrays of other devices beside it, and two such garrays of different sizes (no
## broadcast between them) are errors (gather one first).
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
## 1000 elements, its values (inside a cell or struct: its @code{summary}, as
## @qcode{"[1x2 double] on GPU 0"}).  Octave's @code{dot}, @code{norm} (vector norms, and
## @code{"fro"}, 1 and Inf of a matrix), @code{vecnorm}, @code{sum}, @code{mean},
## @code{any} and @code{all} run on the device when given garrays, with Octave's results
## and errors (@code{any} ignores NaN; an empty garray gives what Octave gives for an
## empty array), with three differences: @code{sum} and @code{mean} add singles in double
## (as Octave 9 and later's @code{mean}; Octave's @code{sum} adds them in single, whose
## partial sums can overflow where the result does not), and the mean of complex values
## with a NaN or Inf among them is their sum over the count, as Octave 7 to 10 give it
## (11.3's is 0); a matrix's 1- or Inf-norm is NaN where any column's (row's) sum is NaN
## (Octave 7 to 11 keep a NaN only in the first sum: @code{norm ([1 NaN; 1 1], 1)} is 2
## there); and @code{all} counts NaN as nonzero along every dimension, as Octave's does
## along the first (Octave 7 to 11 count it as zero along a later dimension where the ones
## before it hold more than one element: @code{all ([1 NaN; 1 1], 2)} is
## @code{[false; true]} there).  @code{isequaln} compares contents.
## @code{max} and @code{min} (@code{[m, i] = max (g, [], dim)}) run on the device by
## Octave's rules (NaN skipped unless alone, ties to the lowest index, complex values by
## magnitude, then argument).  @code{[b, i] = maxk (g, k, dim)} and @code{mink} give the
## k largest (smallest) along @var{dim}, NaN after every number, equal values by the
## lowest index (the first k of a stable sort); on the device for real garrays on one
## GPU and k <= 256, else through the host; a @var{k} that is not a non-negative integer
## is @code{gpudot:badOption}.  @code{gsearch (Q, g, k)} searches a garray's columns.
## Arithmetic, comparisons, concatenation, assignment, @code{max (g, y)},
## @code{prod}, @code{sort}, @code{reshape} and other element-wise or reshaping functions
## need host data: they give @code{gpudot:gatherFirst}.  Octave itself decides some uses
## without asking the object: @code{if (g)} and @code{g && true} are false whatever
## @var{g} holds (use @code{any (g)} or @code{all (g)}), and @code{x(g)},
## @code{y(2) = g} and @code{for v = g} fail in Octave's own code.  @code{save} keeps no data of a garray
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
## @code{gpudot:noDevice} (no such device; without a usable GPU, @qcode{"devices"} keeps
## the data on the host as @code{garray (x)} does), @code{gpudot:badDim} (more than 64
## dimensions), @code{gpudot:outOfMemory} (a device cannot hold it: nothing is kept),
## @code{gpudot:gatherFirst} (an operation that needs host data),
## @code{Octave:invalid-index} (a subscript that is 0, negative, fractional or NaN),
## @code{Octave:index-out-of-bounds} (a subscript past its dimension), @code{gpudot:cuda}
## (a CUDA failure, with CUDA's text; after a kernel fault CUDA is lost to the process and
## garrays cannot be read: restart Octave).  Warning: @code{gpudot:noDevice}.
##
## @seealso{gather, gdot, gnorm, gcosine, gsearch, gpudot_info, gpudot_gpu_available}
## @end deftypefn

classdef garray < handle

  properties (Constant, Hidden = true)
    ## numel (g) may be the element count: Octave 7 sizes indexing by numel (g, idx...),
    ## Octave 11 by numArgumentsFromSubscript
    numel_counts = ! compare_versions (OCTAVE_VERSION, "8", ">=") || compare_versions (OCTAVE_VERSION, "11", ">=");
    ## numel (g, idx...) may be the count of the selection: Octave 7 sizes indexing by it
    index_counts = compare_versions (OCTAVE_VERSION, "11", ">=");
  endproperties

  properties (Hidden = true)
    ## What gdot, gnorm and gcosine hand to the gateway: struct ("garray_id", id) for
    ## resident data, the data itself where no GPU is usable.  Read directly by the
    ## wrappers (a property read costs far less than a method call in Octave).
    ref = struct ("garray_id", 0);
  endproperties

  ## Readable (hidden) rather than private: after `clear functions`, Octave 7 no longer
  ## lets delete read private properties of objects made before, and the memory would be
  ## stranded.  Settable too, but only through the class's own writes (see subsasgn): once
  ## garray has been called as a method (f = @garray; f (g)), Octave 7 to 11 treat the
  ## class's own methods as outsiders, and private properties could never be set again.
  properties (Hidden = true)
    id = 0;            # registry id in __gpudot__ (0 once deleted; ids are never reused)
    ondevice = false;  # data on the GPU (else in ref)
    dims = [1 1];      # until fill sets it (numel (g) must not be 0 while it writes)
    elclass = "double";
    cplx = false;
    devices = [];      # the GPU of each shard (one entry: one GPU)
    narrow = false;    # complex storage of an index result: real where its imaginary parts
                       # are all zero, as Octave's indexing narrows
  endproperties

  ## The one visible property: what Octave shows for a garray inside a cell or a struct
  ## (Octave prints a classdef object there by its visible properties, not by disp)
  properties (Dependent, SetAccess = private)
    summary
  endproperties

  methods

    function s = get.summary (g)
      if (g.id == 0)
        s = "deleted";
        return;
      endif
      where = "host memory";
      if (g.ondevice)
        u = unique (g.devices);
        where = sprintf ("GPU%s %s", ifelse (numel (u) > 1, "s", ""),
                         strjoin (arrayfun (@num2str, u, "uniformoutput", false), ", "));
      endif
      s = sprintf ("[%s %s%s] on %s", strjoin (arrayfun (@num2str, g.dims, "uniformoutput", false), "x"),
                   ifelse (g.cplx, "complex ", ""), g.elclass, where);
    endfunction

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
      [id, ondevice, devices] = __gpudot__ ("garray_new", x, devs{:});
      if (ondevice)
        ref = struct ("garray_id", id);
      else
        ref = x;
      endif
      garray.fill (g, id, ondevice, ref, size (x), class (x), iscomplex (x), devices);
    endfunction

    function delete (g)
      ## Octave may call delete more than once (explicitly, then when the last
      ## reference goes): only the first frees anything, and the gateway ignores ids it
      ## no longer holds
      if (g.id != 0)
        garray.free_id (g.id);
        try
          garray.fill (g, 0, false, struct ("garray_id", 0));   # any later use is a clear error
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
            if (g.cplx && ! g.narrow && isreal (varargout{i}))
              ## (a MEX result whose imaginary parts are all zero arrives real)
              varargout{i} = complex (varargout{i});
            endif
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
        if (! (isnumeric (k) && isreal (k)) || isempty (k) || any (k < 1 | k != fix (k)))
          error ("gpudot:badDim", "size: DIM must be a positive integer or a vector of them");
        endif
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
      if (garray.writable (0) > 0)       # garray.fill at work: Octave 7 checks each write
        n = 1;                            # against numel (g) where it lost track of the class
      elseif (nargin > 1 && garray.index_counts)
        n = numel (__garray_index__ (g.dims, varargin));
      elseif (nargin > 1 || ! garray.numel_counts)
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
                                g.cplx, g.devices, g.cplx);
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
      ## reached for the class's own property writes only where Octave lost track of the
      ## class (see the properties): garray.fill opens them (garray.writable)
      if (strcmp (s(1).type, ".") && garray.writable (0) > 0)
        g = builtin ("subsasgn", g, s, v);
        return;
      endif
      error ("gpudot:gatherFirst", "garray: assignment into a garray is not supported; x = gather (g) first");
    endfunction

    function x = double (g)
      x = double (gather (g));
    endfunction

    function x = single (g)
      x = single (gather (g));
    endfunction

    function tf = isequal (varargin)
      [varargin{:}] = gather (varargin{:});
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
      tf = g.cplx && ! (g.narrow && isreal (gather (g)));
    endfunction

    function tf = isvector (g)
      tf = numel (g.dims) == 2 && any (g.dims == 1);     # 1x0 too, as isvector
    endfunction

    function tf = isscalar (g)
      tf = prod (g.dims) == 1;
    endfunction

    ## Octave's reductions on garrays run on the device, with their semantics; an empty
    ## garray gives what Octave gives for an empty array of its size and class
    function d = dot (x, y, varargin)
      d = garray.as ("dot", @gdot, x, y, varargin{:});
    endfunction

    function n = vecnorm (x, p = 2, varargin)
      if (! (isnumeric (p) && isscalar (p) && isreal (p) && p > 0))   # as vecnorm
        error ("gpudot:badOption", "vecnorm: P must be positive real scalar or Inf");
      endif
      if (any (x.dims == 0))            # Octave's shapes for empties differ by release
        n = vecnorm (garray.empty_like (x), p, varargin{:});
        return;
      endif
      n = garray.as ("vecnorm", @gnorm, x, p, varargin{:});
      if (p == Inf && garray.vecnorm_skips_nan ())
        if (any (isnan (n(:))))
          n = garray.inf_norm_skipping_nan (n, x, varargin);
        endif
      elseif (garray.vecnorm_nan ())
        n = garray.nan_parts (n, x, p, varargin);
      endif
    endfunction

    function n = norm (x, p = 2, opt = "")
      if (! isempty (opt))
        if (numel (x.dims) > 2)
          error ("gpudot:badDim", "norm: only valid for 2-D objects");
        elseif (any (strcmpi (opt, {"rows"})))
          n = garray.nan_parts (garray.as ("norm", @gnorm, x, p, 2), x, p, {2});
        elseif (any (strcmpi (opt, {"columns", "cols"})))
          n = garray.nan_parts (garray.as ("norm", @gnorm, x, p, 1), x, p, {1});
        else
          error ("gpudot:badOption", "norm: OPT must be \"rows\", \"columns\" or \"cols\"");
        endif
        return;
      endif
      if (numel (x.dims) > 2)
        error ("gpudot:badDim", "norm: only valid for 2-D objects");
      elseif (ischar (p) && strcmpi (p, "fro"))
        n = garray.as ("norm", @gnorm, x, "fro");
      elseif (any (x.dims == 1) || any (x.dims == 0))
        n = garray.as ("norm", @gnorm, x, p);
        if (isempty (n))
          n = zeros (1, 1, x.elclass);
        endif
        n = garray.nan_parts (n(1), x, p, {});
      elseif (isnumeric (p) && isscalar (p) && p == 1)
        n = garray.max_nan (gnorm (x, 1, 1));
      elseif ((isnumeric (p) && isscalar (p) && p == Inf) || (ischar (p) && strcmpi (p, "inf")))
        n = garray.max_nan (gnorm (x, 1, 2));
      elseif (isnumeric (p) && isscalar (p) && isreal (p) && ! isnan (p))
        error ("gpudot:gatherFirst",
               "norm: this matrix norm of a garray needs its singular values; norm (gather (A), ...)");
      else
        error ("gpudot:badOption", "norm: P must be a real scalar, \"fro\", \"inf\" or \"-inf\"");
      endif
    endfunction

    function s = sum (x, varargin)
      s = garray.reduction ("sum", x, varargin,
                            @(dim) garray.as ("sum", @gdot, ones (1, 1, x.elclass), x, dim));
    endfunction

    function m = mean (x, varargin)
      m = garray.reduction ("mean", x, varargin, @(dim) garray.mean_of (x, dim));
    endfunction

    ## any ignores NaN, all counts it as nonzero (along DIM 1, Octave's rules): on the
    ## device, the largest magnitude for any (NaN there: decided on the host) and the count
    ## of nonzeros for all
    function tf = any (x, varargin)
      tf = garray.reduction ("any", x, varargin, @(dim) garray.any_of (x, dim));
    endfunction

    function tf = all (x, varargin)
      tf = garray.reduction ("all", x, varargin, @(dim) garray.all_of (x, dim));
    endfunction

    ## max (g), max (g, [], dim) and min likewise, with indices, on the device (one GPU;
    ## several: through the host) by Octave's rules: NaN skipped unless alone, ties to the
    ## lowest index, complex values by magnitude, then argument
    function varargout = max (varargin)
      [varargout{1:max (nargout, 1)}] = garray.extreme ("max", nargin, varargin{:});
    endfunction

    function varargout = min (varargin)
      [varargout{1:max (nargout, 1)}] = garray.extreme ("min", nargin, varargin{:});
    endfunction

    ## What gsearch needs of a garray, in one method call (each property read of a
    ## garray costs a call of its subsref: 20 us)
    function [id, ondevice, elclass, cplx, dims, ndevices] = facts (g)
      id = g.id;
      ondevice = g.ondevice;
      elclass = g.elclass;
      cplx = g.cplx;
      dims = g.dims;
      ndevices = numel (g.devices);
    endfunction

    ## [b, i] = maxk (g, k, dim): the k largest along dim, largest first, NaN after every
    ## number, equal values by the lowest index (the first k of a stable sort); mink the
    ## smallest.  On the device for real garrays on one GPU and k <= 256
    function varargout = maxk (varargin)
      [varargout{1:max (nargout, 1)}] = garray.best_k ("maxk", nargin, varargin{:});
    endfunction

    function varargout = mink (varargin)
      [varargout{1:max (nargout, 1)}] = garray.best_k ("mink", nargin, varargin{:});
    endfunction

    function tf = isequaln (varargin)
      [varargin{:}] = gather (varargin{:});
      tf = isequaln (varargin{:});
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
    function r = abs (varargin),        r = garray.host_only ("abs"); endfunction
    function r = reshape (varargin),    r = garray.host_only ("reshape"); endfunction
    function r = permute (varargin),    r = garray.host_only ("permute"); endfunction
    function r = ipermute (varargin),   r = garray.host_only ("ipermute"); endfunction
    function r = squeeze (varargin),    r = garray.host_only ("squeeze"); endfunction
    function r = sort (varargin),       r = garray.host_only ("sort"); endfunction
    function r = sortrows (varargin),   r = garray.host_only ("sortrows"); endfunction
    function r = unique (varargin),     r = garray.host_only ("unique"); endfunction
    function r = find (varargin),       r = garray.host_only ("find"); endfunction
    function r = prod (varargin),       r = garray.host_only ("prod"); endfunction
    function r = cumsum (varargin),     r = garray.host_only ("cumsum"); endfunction
    function r = cumprod (varargin),    r = garray.host_only ("cumprod"); endfunction
    function r = diff (varargin),       r = garray.host_only ("diff"); endfunction
    function r = isnan (varargin),      r = garray.host_only ("isnan"); endfunction
    function r = isinf (varargin),      r = garray.host_only ("isinf"); endfunction
    function r = isfinite (varargin),   r = garray.host_only ("isfinite"); endfunction
    function r = logical (varargin),    r = garray.host_only ("logical"); endfunction
    function r = real (varargin),       r = garray.host_only ("real"); endfunction
    function r = imag (varargin),       r = garray.host_only ("imag"); endfunction
    function r = conj (varargin),       r = garray.host_only ("conj"); endfunction
    function r = angle (varargin),      r = garray.host_only ("angle"); endfunction
    function r = sqrt (varargin),       r = garray.host_only ("sqrt"); endfunction
    function r = exp (varargin),        r = garray.host_only ("exp"); endfunction
    function r = log (varargin),        r = garray.host_only ("log"); endfunction
    function r = round (varargin),      r = garray.host_only ("round"); endfunction
    function r = floor (varargin),      r = garray.host_only ("floor"); endfunction
    function r = ceil (varargin),       r = garray.host_only ("ceil"); endfunction
    function r = fix (varargin),        r = garray.host_only ("fix"); endfunction
    function r = sign (varargin),       r = garray.host_only ("sign"); endfunction
    function r = mod (varargin),        r = garray.host_only ("mod"); endfunction
    function r = rem (varargin),        r = garray.host_only ("rem"); endfunction
    function r = fliplr (varargin),     r = garray.host_only ("fliplr"); endfunction
    function r = flipud (varargin),     r = garray.host_only ("flipud"); endfunction
    function r = flip (varargin),       r = garray.host_only ("flip"); endfunction
    function r = circshift (varargin),  r = garray.host_only ("circshift"); endfunction
    function r = repmat (varargin),     r = garray.host_only ("repmat"); endfunction
    function r = diag (varargin),       r = garray.host_only ("diag"); endfunction
    function r = tril (varargin),       r = garray.host_only ("tril"); endfunction
    function r = triu (varargin),       r = garray.host_only ("triu"); endfunction
    function r = trace (varargin),      r = garray.host_only ("trace"); endfunction
    function r = kron (varargin),       r = garray.host_only ("kron"); endfunction
    function r = num2str (varargin),    r = garray.host_only ("num2str"); endfunction
    function r = mat2str (varargin),    r = garray.host_only ("mat2str"); endfunction
    function r = int2str (varargin),    r = garray.host_only ("int2str"); endfunction
    function r = arrayfun (varargin),   r = garray.host_only ("arrayfun"); endfunction
    function r = subsindex (varargin),  r = garray.host_only ("subsindex"); endfunction
    function r = colon (varargin),      r = garray.host_only ("colon"); endfunction
    function r = int8 (varargin),       r = garray.host_only ("int8"); endfunction
    function r = uint8 (varargin),      r = garray.host_only ("uint8"); endfunction
    function r = int16 (varargin),      r = garray.host_only ("int16"); endfunction
    function r = uint16 (varargin),     r = garray.host_only ("uint16"); endfunction
    function r = int32 (varargin),      r = garray.host_only ("int32"); endfunction
    function r = uint32 (varargin),     r = garray.host_only ("uint32"); endfunction
    function r = int64 (varargin),      r = garray.host_only ("int64"); endfunction
    function r = uint64 (varargin),     r = garray.host_only ("uint64"); endfunction
    function r = char (varargin),       r = garray.host_only ("char"); endfunction
    function r = cell2mat (varargin),   r = garray.host_only ("cell2mat"); endfunction
    function r = full (varargin),       r = garray.host_only ("full"); endfunction
    function r = sparse (varargin),     r = garray.host_only ("sparse"); endfunction
    function r = median (varargin),     r = garray.host_only ("median"); endfunction
    function r = mode (varargin),       r = garray.host_only ("mode"); endfunction
    function r = std (varargin),        r = garray.host_only ("std"); endfunction
    function r = var (varargin),        r = garray.host_only ("var"); endfunction

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
      tf = ! iscomplex (g);
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
    function g = from_id (id, sz, elclass, cplx, devices, narrow = false)
      g = garray ([]);     # an empty placeholder, replaced below
      __gpudot__ ("garray_free", g.id);
      garray.fill (g, id, true, struct ("garray_id", id), sz, elclass, cplx, devices, narrow);
    endfunction

    ## Where the gateway was loaded from (noted by PKG_DEL, while it is still on the path):
    ## delete reaches it there after pkg unload
    function d = gateway_dir (note)
      persistent dir = "";
      if (nargin > 0 && isempty (dir))
        dir = fileparts (which ("__gpudot__"));
      endif
      d = dir;
    endfunction

    ## Frees registry entry id; where pkg unload took the gateway off the path (the MEX
    ## stays loaded while garrays live), through its directory for the call
    function free_id (id)
      try
        __gpudot__ ("garray_free", id);
      catch err
        d = garray.gateway_dir ();
        if (! strcmp (err.identifier, "Octave:undefined-function") || isempty (d))
          rethrow (err);
        endif
        addpath (d);
        unwind_protect
          __gpudot__ ("garray_free", id);
        unwind_protect_cleanup
          rmpath (d);
        end_unwind_protect
      end_try_catch
    endfunction

    ## Sets a garray's properties (the only place that does).  Where Octave routes these
    ## writes through subsasgn (see the properties), garray.writable lets them through.
    function fill (g, id, ondevice, ref, dims, elclass, cplx, devices, narrow = false)
      garray.writable (1);
      unwind_protect
        g.id = id;
        g.ondevice = ondevice;
        g.ref = ref;
        if (nargin > 4)
          g.elclass = elclass;
          g.cplx = cplx;
          g.devices = devices;
          g.narrow = narrow;
          g.dims = dims;     # last: there Octave 7 checks writes against numel (g)
        endif
      unwind_protect_cleanup
        garray.writable (-1);
      end_unwind_protect
    endfunction

    ## Adds d to the count of fill calls under way and returns it: subsasgn lets property
    ## writes through only while it is positive
    function n = writable (d)
      persistent k = 0;
      k += d;
      n = k;
    endfunction

    ## Calls fn (a gpudot function) for the Octave function name, whose name its errors carry
    function varargout = as (name, fn, varargin)
      try
        [varargout{1:max (nargout, 1)}] = fn (varargin{:});
      catch err
        err.message = regexprep (err.message, '^(gdot|gnorm|gcosine): ', [name ": "]);
        rethrow (err);
      end_try_catch
    endfunction

    function [m, i] = extreme (fn, nargs, x, y = [], dim = [])
      if (nargs == 2 || ! isa (x, "garray") || ! (isnumeric (y) && isempty (y)) || nargs > 3)
        if (nargs > 3)
          error ("gpudot:gatherFirst", "%s: a garray takes %s (g) or %s (g, [], dim); %s (gather (g), ...) for more",
                 fn, fn, fn, fn);
        endif
        garray.host_only (sprintf ("%s of two arrays", fn));
      endif
      if (nargs < 3)
        dim = garray.first_dim (x);
      elseif (! (isnumeric (dim) && isscalar (dim) && isreal (dim) && dim >= 1 && dim == fix (dim)))
        error ("gpudot:badDim", "%s: DIM must be a valid dimension", fn);
      endif
      dim = double (dim);
      if (any (x.dims == 0) || ! x.ondevice || numel (x.devices) > 1)
        if (any (x.dims == 0))
          h = garray.empty_like (x);
        else
          h = gather (x);
        endif
        [m, i] = feval (fn, h, [], dim);
      else
        [m, i] = __gpudot__ ("garray_minmax", x.id, dim, strcmp (fn, "min"));
      endif
    endfunction

    function [b, i] = best_k (fn, nargs, x, k = [], dim = [])
      if (nargs < 2 || nargs > 3)
        error ("Octave:invalid-fun-call", "%s: call as %s (g, k) or %s (g, k, dim)", fn, fn, fn);
      endif
      if (! isa (x, "garray") || isa (k, "garray") || isa (dim, "garray"))
        garray.host_only (sprintf ("%s with a garray K or DIM", fn));
      endif
      if (! (isnumeric (k) && isscalar (k) && isreal (k) && k >= 0 && k == fix (k) && isfinite (k)))
        error ("gpudot:badOption", "%s: K must be a non-negative integer", fn);
      endif
      if (nargs < 3)
        dim = garray.first_dim (x);
      elseif (! (isnumeric (dim) && isscalar (dim) && isreal (dim) && dim >= 1 && dim == fix (dim)))
        error ("gpudot:badDim", "%s: DIM must be a positive integer", fn);
      endif
      k = double (k);
      dim = double (dim);
      is_min = strcmp (fn, "mink");
      if (x.ondevice && numel (x.devices) == 1 && ! x.cplx && k <= 256 && ! any (x.dims == 0))
        [b, i] = __gpudot__ ("garray_topk", x.id, k, dim, is_min);
      elseif (any (x.dims == 0))
        [b, i] = __gpudot_topk__ (garray.empty_like (x), k, dim, is_min);
      else
        [b, i] = __gpudot_topk__ (gather (x), k, dim, is_min);
      endif
    endfunction

    ## fn (x, args{:}) for a reduction of Octave's: on_device (dim) where x has elements,
    ## else Octave's own answer for an empty array of x's size and class
    function r = reduction (fn, x, args, on_device)
      dim = garray.dim_arg (fn, x, args);
      if (any (x.dims == 0))
        r = feval (fn, zeros (x.dims, x.elclass), args{:});
      else
        r = on_device (dim);
      endif
    endfunction

    ## Octave's norm takes a complex element with a NaN part for a NaN at p = Inf and -Inf,
    ## where gnorm takes its modulus (abs: Inf), as Octave 7.3's vecnorm does: NaN where the
    ## 2-norm is, which is NaN for such an element (and for a NaN, whose norms are NaN
    ## already)
    function n = nan_parts (n, x, p, dimargs)
      if (! x.cplx)
        return;
      elseif (ischar (p))
        p = find (strcmpi (p, {"inf", "-inf"}));
        p = [Inf, -Inf](p);
      endif
      ## (p = Inf: such an element makes its norm Inf, so only an Inf needs the check)
      if (isnumeric (p) && isscalar (p) && (p == -Inf || (p == Inf && any (isinf (n(:))))))
        n(isnan (gnorm (x, 2, dimargs{:}))) = NaN;
      endif
    endfunction

    ## whether this Octave's vecnorm takes such an element for a NaN too (11.3 does; 7.3 and
    ## 9.4 take its modulus)
    function tf = vecnorm_nan ()
      persistent nan_p;
      if (isempty (nan_p))
        nan_p = isnan (vecnorm (complex (Inf, NaN), Inf));
      endif
      tf = nan_p;
    endfunction

    ## whether this Octave's vecnorm (x, Inf) skips NaN, as max (abs (x)) (7.3 and 9.4;
    ## 11.3's gives NaN, as gnorm)
    function tf = vecnorm_skips_nan ()
      persistent skips;
      if (isempty (skips))
        skips = ! isnan (vecnorm ([NaN 1], Inf));
      endif
      tf = skips;
    endfunction

    ## Such a vecnorm's values where gnorm's n is NaN.  Real data take max and min on
    ## the device; complex data, whose elements half Inf, half NaN have the modulus Inf
    ## where max skips them as NaN, the host's vecnorm.
    function n = inf_norm_skipping_nan (n, x, dimargs)
      if (isempty (dimargs))
        dim = garray.first_dim (x);
      else
        dim = dimargs{1};
      endif
      if (x.cplx)
        m = vecnorm (gather (x), Inf, dim);
      else
        m = abs (max (max (x, [], dim), -min (x, [], dim)));
      endif
      k = isnan (n);
      n(k) = m(k);
    endfunction

    ## a host array of x's size, class and complexity, for Octave's answers on empties
    function h = empty_like (x)
      h = zeros (x.dims, x.elclass);
      if (x.cplx)
        h = complex (h);
      endif
    endfunction

    ## the largest of the sums s, NaN where one is: a NaN anywhere makes the norm NaN
    ## (Octave's norm keeps a NaN only in the first sum; max alone skips every NaN)
    function n = max_nan (s)
      n = max (s(:));
      if (any (isnan (s(:))))
        n = cast (NaN, class (s));
      endif
    endfunction

    ## the sums are in double, rounded to the class; a sum of singles can pass realmax where
    ## its mean does not: those parts again from the sums times 2^-s (exact in the double
    ## sum; the scaled sum then fits), so that the mean of singles overflows only where it
    ## is infinite, as Octave 9's mean (a double sum) gives it
    function m = mean_of (x, dim)
      n = size (x, dim);
      m = garray.as ("mean", @gdot, ones (1, 1, x.elclass), x, dim) / n;
      if (strcmp (x.elclass, "single") && any (isinf (m(:))))
        s = max (0, ceil (log2 (n)));
        t = double (garray.as ("mean", @gdot, single (2^-s), x, dim)) * (2^s / n);
        re = isinf (real (m));
        im = isinf (imag (m));
        if (x.cplx)
          m(re) = complex (real (t(re)), imag (m(re)));
          m(im) = complex (real (m(im)), imag (t(im)));
        else
          m(re) = t(re);
        endif
      endif
    endfunction

    ## (a NaN's run goes to Octave's any, as does a complex run holding Inf: the largest
    ## magnitude of a value half Inf, half NaN is Inf, and any ignores that NaN)
    function tf = any_of (x, dim)
      m = gnorm (x, Inf, dim);
      tf = m > 0;
      if (any (isnan (m(:))) || (x.cplx && any (isinf (m(:)))))
        tf = any (gather (x), dim);
      endif
    endfunction

    function tf = all_of (x, dim)
      n = size (x, dim);
      if (strcmp (x.elclass, "single") && n > flintmax ("single"))
        tf = all (gather (x), dim);      # counts past 2^24 do not fit a single result
      else
        tf = gnorm (x, 0, dim) == n;
      endif
    endfunction

    ## The DIM of a reduction fn (g) or fn (g, dim): given, else the first dimension that is
    ## not 1
    function dim = dim_arg (fn, x, args)
      if (numel (args) > 1 || (numel (args) == 1 && ! isnumeric (args{1})))
        error ("gpudot:gatherFirst", "%s: a garray takes %s (g) or %s (g, dim); %s (gather (g), ...) for more",
               fn, fn, fn, fn);
      elseif (numel (args) == 1)
        dim = args{1};
        if (! (isscalar (dim) && isreal (dim) && dim >= 1 && dim == fix (dim)))
          error ("gpudot:badDim", "%s: DIM must be a positive integer", fn);
        endif
        dim = double (dim);
      else
        dim = garray.first_dim (x);
      endif
    endfunction

    ## Octave's default DIM: the first dimension that is not 1
    function dim = first_dim (x)
      dim = find (x.dims != 1, 1);
      if (isempty (dim))
        dim = 1;
      endif
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

