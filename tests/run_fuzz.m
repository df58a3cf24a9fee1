## The differential fuzzer's long run (make fuzz): GPUDOT_FUZZ_CASES cases (default 10^5)
## of tests/fuzz_diff.m from seed GPUDOT_FUZZ_SEED (default 1), with "device" drawn from
## "gpu", "cpu" and "auto" where a GPU is usable (garrays then live on it), else "cpu" and
## "auto".  Each mismatch is printed with its reproducer; the last line is
##   N passed, N failed, 0 skipped
## and the exit status is non-zero on any mismatch.  make fuzz runs FUZZ_JOBS copies, each
## a range of the seeds (tests/run_jobs.sh).  To study one: GPUDOT_FUZZ_DUMP=FILE
## and fuzz_diff (SEED, 1, DEVICES) keep the case's operands in FILE.

1;

function v = env_number (name, default)
  v = str2double (getenv (name));
  if (isnan (v))
    v = default;
  endif
endfunction

here = fileparts (mfilename ("fullpath"));
addpath (here);
gpudot_test_paths ();
warning ("off", "gpudot:noDevice");
n = env_number ("GPUDOT_FUZZ_CASES", 1e5);
seed = env_number ("GPUDOT_FUZZ_SEED", 1);
## copy GPUDOT_JOB of GPUDOT_JOBS (tests/run_jobs.sh): its share of the seeds, in one range
job = env_number ("GPUDOT_JOB", 0);
njobs = max (1, env_number ("GPUDOT_JOBS", 1));
per = ceil (n / njobs);
seed += job * per;
n = max (0, min (per, n - job * per));
gpu = gpudot_gpu_available ();
devices = ifelse (gpu, {{"gpu", "cpu", "auto"}}, {{"cpu", "auto"}}){1};
t0 = tic ();
passed = failed = 0;
batch = 10000;
for s = seed:batch:seed + n - 1
  [p, f, msgs] = fuzz_diff (s, min (batch, seed + n - s), devices);
  passed += p;
  failed += f;
  printf ("%s", sprintf ("%s\n", msgs{:}));
  fflush (stdout);
endfor
printf ("fuzz_diff: seeds %d-%d, devices %s, %s: %d cases, %d mismatches (%.0f s)\n", seed,
        seed + n - 1, strjoin (devices, "/"), ifelse (gpu, "garrays on the GPU", "no GPU"),
        n, failed, toc (t0));
printf ("%d passed, %d failed, 0 skipped\n", passed, failed);
exit (failed > 0);
