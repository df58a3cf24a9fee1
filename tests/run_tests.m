## gpudot test runner: runs every %! block in the package's .m files and in tests/*.m,
## then the generated case grids (tests/grid_*.m), and ends with exactly one line
##   N passed, N failed, N skipped
## exiting non-zero on any failure.  GPU cases are skipped (and counted so) where no GPU
## is usable; on a GPU machine they run.
##
## Environment: GPUDOT_MEXDIR (in-tree build) or GPUDOT_PKG_PREFIX (an installed package);
## GPUDOT_GRID_STRIDE (see below); GPUDOT_JOB, GPUDOT_JOBS and GPUDOT_QUEUE
## (tests/run_jobs.sh).

1;

## whether test file i is this copy's: the next one no copy has claimed (a directory made
## in the shared queue: of copies side by side, one makes it), or every njobs-th
function tf = mine (i, queue, job, njobs)
  if (isempty (queue))
    tf = mod (i - 1, njobs) == job;
  else
    [ok, ~, id] = mkdir (queue, sprintf ("%d", i));
    tf = ok && isempty (id);    # (id "mkdir": it was there already)
  endif
endfunction

function [p, f, s] = run_grid (cases, gpu, stride, offset, job, njobs)
  p = f = s = 0;
  k = 0;                        # the cases one copy alone would run, dealt out in turn
  for i = 1:numel (cases)
    c = cases{i};
    if ((c.gpu && ! gpu) || mod (i - 1 - offset, stride) != 0)
      s += job == 0;            # (counted once among the copies)
      continue;
    endif
    k++;
    if (mod (k - 1, njobs) != job)
      continue;
    endif
    try
      c.fn ();
      p++;
    catch err
      f++;
      printf ("FAIL %s: %s\n", c.name, err.message);
    end_try_catch
  endfor
endfunction

here = fileparts (mfilename ("fullpath"));
addpath (here);
mdir = gpudot_test_paths ();

gpu = gpudot_gpu_available ();
info = gpudot_info ();
printf ("gpudot %s, backend %s%s\n", info.version, info.backend,
        ifelse (gpu, [" (" info.device_name ", cc " info.compute_capability ")"], ""));
warning ("off", "gpudot:noDevice");

files = [glob(fullfile (mdir, "*.m")); glob(fullfile (here, "test_*.m"))];
## GPUDOT_JOB = j of GPUDOT_JOBS = k (tests/run_jobs.sh): the test files it claims from
## the queue GPUDOT_QUEUE, copies side by side (without one: every k-th from the (j+1)-th,
## for copies run one after another), and every k-th of the grid cases that one run would
## run.  (Under valgrind, every k-th file left the two copies 4 minutes apart.)
job = str2double (getenv ("GPUDOT_JOB"));
njobs = str2double (getenv ("GPUDOT_JOBS"));
if (isnan (job) || isnan (njobs) || njobs < 1)
  job = 0;
  njobs = 1;
endif
queue = ifelse (njobs > 1, getenv ("GPUDOT_QUEUE"), "");
passed = failed = skipped = 0;
for i = 1:numel (files)
  if (! mine (i, queue, job, njobs))
    continue;
  endif
  [n, nmax, nxfail, nbug, nskip, nrtskip] = test (files{i}, "quiet", stdout);
  passed += n;
  failed += nmax - n;
  skipped += nskip + nrtskip;
  if (nmax - n > 0)
    printf ("FAIL in %s: %d of %d blocks\n", files{i}, nmax - n, nmax);
  endif
endfor

## GPUDOT_GRID_STRIDE = k runs every k-th case of each grid (the rest count as skipped):
## for runs under valgrind or compute-sanitizer, where each case costs a hundred times
## more.  GPUDOT_GRID_OFFSET = j (0 <= j < k) starts at case j + 1, so that k runs with
## j = 0 .. k-1 cover every case between them.
stride = max (1, round (str2double (getenv ("GPUDOT_GRID_STRIDE"))));
if (isnan (stride))
  stride = 1;
endif
offset = round (str2double (getenv ("GPUDOT_GRID_OFFSET")));
if (isnan (offset))
  offset = 0;
endif
offset = mod (offset, stride);
grids = glob (fullfile (here, "grid_*.m"));
for i = 1:numel (grids)
  [~, name] = fileparts (grids{i});
  t0 = tic ();
  cases = feval (name);
  [p, f, s] = run_grid (cases, gpu, stride, offset, job, njobs);
  printf ("%s: %d cases%s, %d passed, %d failed, %d skipped (%.1f s)\n", name, numel (cases),
          ifelse (stride > 1, sprintf (" (every %dth run, from case %d)", stride, offset + 1), ""),
          p, f, s, toc (t0));
  passed += p;
  failed += f;
  skipped += s;
endfor

printf ("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
exit (failed > 0);
