## -*- texinfo -*-
## @deftypefn {} {@var{dim} =} reduce_dim (@var{sz}, @var{dimargs})
## Test helper: the dimension a reduction runs along: @var{dimargs}@{1@} where given, else
## the first non-singleton dimension of size @var{sz} (1 if there is none), as dot does.
## @end deftypefn

function dim = reduce_dim (sz, dimargs)

  if (! isempty (dimargs))
    ## any DIM past the dimensions is a singleton one: the first such one serves
    dim = min (dimargs{1}, numel (sz) + 1);
    return;
  endif
  dim = find (sz != 1, 1);
  if (isempty (dim))
    dim = 1;
  endif

endfunction
