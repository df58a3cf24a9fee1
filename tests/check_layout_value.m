## -*- texinfo -*-
## @deftypefn {} {@var{first} =} check_layout_value (@var{i}, @var{v}, @var{first}, @var{ref}, @var{tol}, @var{what})
## Test helper of test_shards and test_spread: the result @var{v} of layout @var{i}.  The
## first layout's must have @var{ref}'s size and lie within @var{tol} of it (and is
## returned); every later one must have the first one's bits.  @var{what} names the call.
## @end deftypefn

function first = check_layout_value (i, v, first, ref, tol, what)
  if (i == 1)
    first = v;
    assert (size (v), size (ref));
    assert (all (abs (double (v(:)) - ref(:)) <= tol(:)), "%s: off by %g", what,
            max (abs (double (v(:)) - ref(:))));
  else
    assert (isequal (bits (v), bits (first)), "%s: layout %d differs at %d of %d by %g", what,
            i, find (bits (v) != bits (first), 1), numel (v), max (abs (double (v(:) - first(:)))));
  endif
endfunction

function r = bits (v)
  r = typecast (v(:), ifelse (isa (v, "single"), "uint32", "uint64"));
endfunction
