## Copyright (C) 2026 gpudot developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{tf} =} gpudot_gpu_available ()
## True when gpudot was built with CUDA and a usable GPU is present.
##
## @example
## @group
## if (gpudot_gpu_available ())
##   D = garray (D);        # keep the data on the GPU
## endif
## @end group
## @end example
## @seealso{gpudot_info, garray, gdot, gnorm, gcosine}
## @end deftypefn

function tf = gpudot_gpu_available ()

  tf = __gpudot__ ("gpu_available");

endfunction

%!assert (islogical (gpudot_gpu_available ()))
