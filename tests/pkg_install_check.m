## pkg install the tarball named by GPUDOT_TARBALL into the prefix GPUDOT_PKG_PREFIX
## (-local), pkg load it, and check that it answers.  Used by `make check-dist`.
prefix = getenv ("GPUDOT_PKG_PREFIX");
pkg ("prefix", prefix, prefix);
pkg ("local_list", fullfile (prefix, "octave_packages"));
pkg ("install", "-local", getenv ("GPUDOT_TARBALL"));
pkg ("load", "gpudot");
warning ("off", "gpudot:noDevice");
s = gpudot_info ();
disp (s);
assert (gdot ([1 2 3], [4 5 6]), 32);
assert (! isempty (strfind (which ("gdot"), prefix)));
printf ("pkg install + pkg load gpudot %s: ok\n", s.version);
## gdot, gnorm and gcosine are the MEX itself (hard links made by post_install.m), each
## beside its .m with the help
for f = {"gdot", "gnorm", "gcosine"}
  w = which (f{1});
  assert (regexp (w, '\.mex$', "once") > 0, w);
  assert (stat (w).ino, stat (which ("__gpudot__")).ino);
  assert (exist (strrep (w, ".mex", ".m"), "file") == 2);
endfor
printf ("entry points: hard links to __gpudot__.mex, help beside them: ok\n");
