## -*- texinfo -*-
## @deftypefn {} {@var{x} =} make_data (@var{sz}, @var{cls}, @var{iscplx}, @var{seed})
## @deftypefnx {} {@var{x} =} make_data (@var{sz}, @var{cls}, @var{iscplx}, @var{seed}, @var{exact})
## Test helper: seeded random data of size @var{sz} and class @var{cls}, complex when
## @var{iscplx}: normal values, or with @var{exact} integers in [-2, 2] (every sum of the
## grid sizes is then exact in every mode).
## @end deftypefn

function x = make_data (sz, cls, iscplx, seed, exact = false)

  rand ("seed", seed);  randn ("seed", seed);
  if (exact)
    x = round (4 * rand (sz) - 2);
    if (iscplx)
      x = complex (x, round (4 * rand (sz) - 2));
    endif
  else
    x = randn (sz);
    if (iscplx)
      x = complex (x, randn (sz));
    endif
  endif
  x = cast (x, cls);

endfunction
