## -*- texinfo -*-
## @deftypefn {} {@var{c} =} make_case (@var{name}, @var{device}, @var{fn})
## Test helper: one case of a generated grid, run by run_tests.m: @var{fn} throws on
## failure; cases on device "gpu" are skipped (and counted so) without a usable GPU.
## @end deftypefn

function c = make_case (name, device, fn)

  c = struct ("name", [name " " device], "gpu", strcmp (device, "gpu"), "fn", fn);

endfunction
