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
