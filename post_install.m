## Copyright (C) 2026 gpudot developers
## SPDX-License-Identifier: GPL-3.0-or-later

## Run by pkg install once the files are in place.  gdot, gnorm and gcosine are entry
## points of the one MEX, __gpudot__.mex: hard links to it (one file, so one loaded library
## and one state: device buffers and garrays are shared), each beside a copy of its .m file,
## which holds the help (Octave finds a MEX's help only in an .m in the same folder) and
## runs only where the MEX is missing.  Octave calls the MEX directly, without an
## interpreted wrapper in between.

function post_install (desc)

  archdir = fullfile (desc.archprefix, [__octave_config_info__("canonical_host_type"), "-", ...
                                        __octave_config_info__("api_version")]);
  mex = fullfile (archdir, "__gpudot__.mex");
  if (! exist (mex, "file"))
    error ("gpudot: post_install: %s is missing", mex);
  endif
  for f = {"gdot", "gnorm", "gcosine"}
    target = fullfile (archdir, [f{1} ".mex"]);
    if (exist (target, "file"))
      delete (target);
    endif
    [err, msg] = link (mex, target);
    if (err)
      error ("gpudot: post_install: cannot link %s: %s", target, msg);
    endif
    copyfile (fullfile (desc.dir, [f{1} ".m"]), archdir);
  endfor

endfunction
