## Copyright (C) 2026 gpudot developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{s} =} gpudot_info ()
## Describe the engine gpudot uses, its GPU and the garrays alive.
##
## @example
## @group
## s = gpudot_info ();
## printf ("%s on %s, %d garrays\n", s.backend, s.device_name, s.garrays);
## @end group
## @end example
##
## @var{s} is a struct with fields
## @table @code
## @item version
## package version
## @item backend
## @code{"cuda"} when a usable GPU was found, else @code{"cpu"}
## @item built_with_cuda
## whether the MEX was compiled with the CUDA engine
## @item device, device_name, compute_capability, multiprocessors
## the GPU in use (device is -1 without one)
## @item memory_total, memory_free
## that GPU's memory in bytes
## @item driver_version, runtime_version
## CUDA driver and runtime versions, e.g. @code{"13.0"}
## @item staging_bytes
## memory gpudot holds in its persistent buffers (device and pinned host memory, every GPU)
## @item garrays, garray_bytes
## the garrays alive and the bytes of their data
## @item device_count
## the GPUs visible (for @code{garray (x, "devices", D)})
## @end table
## @seealso{gpudot_gpu_available, garray, gdot, gnorm, gcosine}
## @end deftypefn

function s = gpudot_info ()

  s = __gpudot__ ("info");

endfunction

%!test
%! s = gpudot_info ();
%! assert (ischar (s.version) && ! isempty (s.version));
%! assert (any (strcmp (s.backend, {"cuda", "cpu"})));
%! assert (strcmp (s.backend, "cuda"), gpudot_gpu_available ());
