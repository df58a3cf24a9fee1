## -*- texinfo -*-
## @deftypefn {} {@var{mdir} =} gpudot_test_paths ()
## Put gpudot on the load path for the test scripts: an installed package where
## GPUDOT_PKG_PREFIX is set (pkg load), else the tree's m/ and the MEX directory
## GPUDOT_MEXDIR (default build/).  Returns the directory of the package's .m files.
## @end deftypefn

function mdir = gpudot_test_paths ()

  here = fileparts (mfilename ("fullpath"));
  root = fileparts (here);
  prefix = getenv ("GPUDOT_PKG_PREFIX");
  if (! isempty (prefix))
    pkg ("prefix", prefix, prefix);
    pkg ("local_list", fullfile (prefix, "octave_packages"));
    pkg ("load", "gpudot");
    mdir = fileparts (which ("gpudot_info"));   # the .m files (gdot.m etc. sit by the MEX too)
  else
    mdir = fullfile (root, "m");
    addpath (mdir);
    mexdir = getenv ("GPUDOT_MEXDIR");
    if (isempty (mexdir))
      mexdir = fullfile (root, "build");
    endif
    addpath (make_absolute_filename (mexdir));
  endif
  addpath (here);

endfunction
