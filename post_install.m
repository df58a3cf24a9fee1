## Copyright (C) 2026 gpudot developers
## SPDX-License-Identifier: GPL-3.0-or-later

## Run by pkg install once the files are in place.  gdot, gnorm and gcosine are compiled
## entries (gdot.oct, copied as gnorm.oct and gcosine.oct, with the .m files' help built
## in), linked against __gpudot__.mex and found beside it at load time, so that one library
## holds the one state (device buffers, garrays).  The .m files of the same names run only
## where the compiled entries are missing.  __gpudot_undispatch__.oct (the same file again)
## is for PKG_DEL, at pkg unload.

function post_install (desc)

  archdir = fullfile (desc.archprefix, [__octave_config_info__("canonical_host_type"), "-", ...
                                        __octave_config_info__("api_version")]);
  for f = {"__gpudot__.mex", "gdot.oct", "gnorm.oct", "gcosine.oct", "__gpudot_undispatch__.oct"}
    if (! exist (fullfile (archdir, f{1}), "file"))
      error ("gpudot: post_install: %s is missing", fullfile (archdir, f{1}));
    endif
  endfor

endfunction
