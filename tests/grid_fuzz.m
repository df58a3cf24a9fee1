## -*- texinfo -*-
## @deftypefn {} {@var{cases} =} grid_fuzz ()
## 2000 seeded random calls on the CPU engine (run everywhere) and 2000 that may also take
## the GPU engine (skipped without one); each case is one call of fuzz_gpudot with its own
## seed, so any failure is reproducible alone: fuzz_gpudot (SEED, 1, DEVICES).
## @end deftypefn

function cases = grid_fuzz ()

  cases = cell (1, 4000);
  for i = 1:2000
    cases{i} = make_case (sprintf ("fuzz seed=%d", i), "cpu", @() fuzz_case (i, {"cpu"}));
    s = 100000 + i;
    cases{2000 + i} = make_case (sprintf ("fuzz seed=%d", s), "gpu",
                                 @() fuzz_case (s, {"gpu", "cpu", "auto"}));
  endfor

endfunction

function fuzz_case (seed, devices)
  [~, bad, errs] = fuzz_gpudot (seed, 1, devices);
  if (bad)
    error ("%s", errs{1});
  endif
endfunction
