## The first-call cost of a build on a GPU machine: in a fresh Octave, the seconds until the
## first result of each function on the GPU, for single and double data (each (function,
## class) pair's kernels are a module of their own, loaded, and JIT-compiled from PTX where
## the build has no machine code for this GPU, on its first use), then the same calls once
## more.  Run it twice with the same empty CUDA_CACHE_PATH: the second run shows what the
## driver's JIT cache saves.
##   GPUDOT_MEXDIR=build octave-cli --no-history --no-init-file bench/first_call.m

here = fileparts (mfilename ("fullpath"));
addpath (fullfile (fileparts (here), "m"));
addpath (make_absolute_filename (getenv ("GPUDOT_MEXDIR")));

t = tic ();
g = garray (single (1:4096));
printf ("context and first upload: %.3f s\n", toc (t));
calls = {"gdot", @(g) gdot (g, g); "gnorm", @(g) gnorm (g); "gcosine", @(g) gcosine (g, g)};
total = 0;
for cls = {"single", "double"}
  g = garray (cast (1:4096, cls{1}));
  for k = 1:rows (calls)
    t = tic ();
    calls{k, 2} (g);
    first = toc (t);
    t = tic ();
    calls{k, 2} (g);
    again = toc (t);
    total += first;
    printf ("%-8s %-7s first %8.3f s, again %.6f s\n", calls{k, 1}, cls{1}, first, again);
  endfor
endfor
printf ("all six first calls: %.3f s\n", total);
