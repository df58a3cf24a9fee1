## -*- texinfo -*-
## @deftypefn {} {@var{cases} =} grid_fuzz ()
## 2000 seeded random calls on the CPU engine (seeds 1-2000, run everywhere) and 10^4 that
## may also take the GPU engine (seeds 100001-110000, skipped without a GPU); each case is
## one call of fuzz_gpudot with its own seed, so any failure is reproducible alone:
## fuzz_gpudot (SEED, 1, DEVICES).  Then 1000 cases of the differential fuzzer on the CPU
## engine and 1000 with the GPU (tests/fuzz_diff.m; make fuzz runs 10^5).
## @end deftypefn

function cases = grid_fuzz ()

  ncpu = 2000;
  ngpu = 10000;
  ndiff = 1000;               # tests/fuzz_diff.m, each engine (make fuzz runs 10^5)
  cases = cell (1, ncpu + ngpu + 2 * ndiff);
  for i = 1:ncpu
    cases{i} = make_case (sprintf ("fuzz seed=%d", i), "cpu", @() fuzz_case (i, {"cpu"}));
  endfor
  for i = 1:ngpu
    s = 100000 + i;
    cases{ncpu + i} = make_case (sprintf ("fuzz seed=%d", s), "gpu",
                                 @() fuzz_case (s, {"gpu", "cpu", "auto"}));
  endfor

  for i = 1:ndiff
    s = 500000 + i;
    cases{ncpu + ngpu + i} = make_case (sprintf ("fuzz_diff seed=%d", s), "cpu",
                                        @() diff_case (s, {"cpu", "auto"}));
    s = 600000 + i;
    cases{ncpu + ngpu + ndiff + i} = make_case (sprintf ("fuzz_diff seed=%d", s), "gpu",
                                                @() diff_case (s, {"gpu", "cpu", "auto"}));
  endfor

endfunction

function diff_case (seed, devices)
  [~, bad, msgs] = fuzz_diff (seed, 1, devices);
  if (bad)
    error ("%s", msgs{1});
  endif
endfunction

function fuzz_case (seed, devices)
  [~, bad, errs] = fuzz_gpudot (seed, 1, devices);
  if (bad)
    error ("%s", errs{1});
  endif
endfunction
