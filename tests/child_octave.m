## -*- texinfo -*-
## @deftypefn  {} {[@var{status}, @var{out}] =} child_octave (@var{code})
## @deftypefnx {} {[@var{status}, @var{out}] =} child_octave (@var{code}, @var{env})
## @deftypefnx {} {@var{pid} =} child_octave (@var{code}, @var{env}, @var{outfile})
## Run @var{code} in a fresh octave-cli with this session's gpudot on its path, for tests
## whose subject is the process itself: a lost CUDA context, the one warning of a session,
## Ctrl-C.  @var{env} is a shell prefix such as @qcode{"CUDA_VISIBLE_DEVICES= "}.  With two
## outputs, wait and return the exit status and everything it printed (stdout and stderr).
## With @var{outfile}, start it in the background writing there and return its pid (the
## octave-cli process itself, so that @code{kill} reaches it).
## @end deftypefn

function varargout = child_octave (code, env = "", outfile = "")

  ## this session's load path, in its order (an installed package's directories too); no
  ## octave-workspace file where a signal ends the child
  pre = sprintf ("crash_dumps_octave_core (false); path ('%s');", strrep (path (), "'", "''"));
  script = [tempname() ".m"];
  fid = fopen (script, "w");
  fprintf (fid, "%s\n%s\n", pre, code);
  fclose (fid);
  exe = fullfile (OCTAVE_HOME (), "bin", "octave-cli");
  if (! exist (exe, "file"))
    exe = "octave-cli";
  endif
  cmd = sprintf ("%s'%s' --no-history --no-init-file --no-site-file '%s'", env, exe, script);
  if (isempty (outfile))
    [status, out] = system ([cmd " 2>&1"]);
    unlink (script);
    varargout = {status, out};
  else
    ## exec: the shell becomes octave-cli, so the pid is Octave's
    varargout = {system(sprintf ("exec %s > '%s' 2>&1", cmd, outfile), false, "async")};
  endif

endfunction
