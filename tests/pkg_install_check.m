## pkg install the tarball named by GPUDOT_TARBALL into the prefix GPUDOT_PKG_PREFIX
## (-local), pkg load it, and check that it answers.  Used by `make check-dist`.
prefix = getenv ("GPUDOT_PKG_PREFIX");
pkg ("prefix", prefix, prefix);
pkg ("local_list", fullfile (prefix, "octave_packages"));
t0 = tic ();
pkg ("install", "-local", getenv ("GPUDOT_TARBALL"));
printf ("pkg install: %.0f s\n", toc (t0));
pkg ("load", "gpudot");
warning ("off", "gpudot:noDevice");
s = gpudot_info ();
disp (s);
assert (gdot ([1 2 3], [4 5 6]), 32);
assert (! isempty (strfind (which ("gdot"), prefix)));
printf ("pkg install + pkg load gpudot %s: ok\n", s.version);
## gdot, gnorm and gcosine are the compiled entries beside __gpudot__.mex, linked against
## it (one library, one state), with the help of the .m files built in
for f = {"gdot", "gnorm", "gcosine"}
  w = which (f{1});
  assert (regexp (w, '\.oct$', "once") > 0, w);
  assert (fileparts (w), fileparts (which ("__gpudot__")));
  [text, format] = get_help_text (f{1});
  assert (format, "texinfo");
  assert (! isempty (strfind (text, [f{1} " (@var{x}"])), text);
endfor
assert (gnorm ([3 4]), 5);
assert (gcosine ([1 0], [2 0]), 1);
printf ("entry points: %s.oct etc. beside __gpudot__.mex, with help: ok\n", "gdot");
## lookfor lists each function once (the .m fallbacks carry no help of their own)
[fns, ~] = lookfor ("cosine");
assert (sum (strcmp (fns, "gcosine")), 1, strjoin (fns, " "));
[fns, ~] = lookfor ("dot product");
assert (sum (strcmp (fns, "gdot")), 1, strjoin (fns, " "));
## every demo of the package's functions runs
for f = {"gdot", "gnorm", "gcosine", "garray"}
  demo (f{1});
endfor
printf ("lookfor lists each function once; demo gdot, gnorm, gcosine, garray: ok\n");
## garray arguments: the entries register for Octave's cached garray dispatch on their
## first calls (mex/gpudot_entry.cc); pkg unload runs PKG_DEL, which takes that back, so
## that the names leave with the package; pkg load brings them back
g = garray ([3 4]);
assert ([gnorm(g), gdot(g, g), gcosine(g, g)], [5 25 1], eps);
for f = {"gdot", "gnorm", "gcosine"}
  assert (exist (f{1}, "builtin"), 5);
endfor
clear g
pkg ("unload", "gpudot");
for f = {"gdot", "gnorm", "gcosine"}
  assert (exist (f{1}), 0);
endfor
try
  gdot (1, 2);
  error ("gdot is still defined after pkg unload");
catch err
  assert (err.identifier, "Octave:undefined-function");
end_try_catch
pkg ("load", "gpudot");
g = garray ([3 4]);
assert (gdot (g, g), 25);
assert (exist ("gdot", "builtin"), 5);
clear g
printf ("pkg unload takes the garray dispatch back, pkg load restores it: ok\n");
## a garray that outlives pkg unload is freed when it goes (its class calls the gateway
## through a handle bound at load)
g = garray ([1 2 3]);
n0 = gpudot_info ().garrays;
pkg ("unload", "gpudot");
out = evalc ("clear g");
pkg ("load", "gpudot");
assert (gpudot_info ().garrays, n0 - 1);
assert (isempty (strfind (out, "error")), out);
printf ("a garray cleared after pkg unload frees its memory: ok\n");
