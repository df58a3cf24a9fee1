## -*- texinfo -*-
## @deftypefn {} {@var{cases} =} grid_fuzz ()
## The differential fuzzer (tests/fuzz_diff.m) in the suite: 2000 calls on the CPU engine
## (seeds 1-2000, run everywhere) and 10^4 that may also take the GPU engine, with garrays
## on it (seeds 100001-110000, skipped without a GPU); each case is one call with its own
## seed, so any failure is reproducible alone: fuzz_diff (SEED, 1, DEVICES).  make fuzz
## runs 10^5 more.
## @end deftypefn

function cases = grid_fuzz ()

  ncpu = 2000;
  ngpu = 10000;
  cases = cell (1, ncpu + ngpu);
  for i = 1:ncpu
    cases{i} = make_case (sprintf ("fuzz_diff seed=%d", i), "cpu",
                          @() fuzz_case (i, {"cpu", "auto"}));
  endfor
  for i = 1:ngpu
    s = 100000 + i;
    cases{ncpu + i} = make_case (sprintf ("fuzz_diff seed=%d", s), "gpu",
                                 @() fuzz_case (s, {"gpu", "cpu", "auto"}));
  endfor

endfunction

function fuzz_case (seed, devices)
  [~, bad, msgs] = fuzz_diff (seed, 1, devices);
  if (bad)
    error ("%s", msgs{1});
  endif
endfunction
