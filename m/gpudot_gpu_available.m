## Copyright (C) 2026 gpudot developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{tf} =} gpudot_gpu_available ()
## True when gpudot was built with CUDA and a usable GPU is present.
## Tests use it to skip GPU cases (counted as skipped) elsewhere.
## @seealso{gpudot_info}
## @end deftypefn

function tf = gpudot_gpu_available ()

  tf = __gpudot__ ("gpu_available");

endfunction

%!assert (islogical (gpudot_gpu_available ()))
