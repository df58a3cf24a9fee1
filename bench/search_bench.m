## Similarity search from Octave (make bench, GPU machine): resident single D (768 x 10^6 by
## default, BENCH_SEARCH_N columns), the best 10 of one query and of 100, gsearch against the
## loop a user writes without it (gcosine, then sort on the host), and the single-query
## gcosine and gdot beside the read ceiling.  Each time: the median of single calls
## (tic/toc), after one untimed call.  CSV rows (section,op,class,shape,n,median_us,
## p10_us,p90_us,bytes,GBps,device) to BENCH_CSV (appended) or stdout.
1;

function t = times_of (f, reps)
  f ();
  t = zeros (1, reps);
  for r = 1:reps
    t0 = tic ();
    f ();
    t(r) = toc (t0);
  endfor
  t = sort (t) * 1e6;
endfunction

function row (fid, op, shape, n, t, bytes, dev)
  m = numel (t);
  med = median (t);
  printf ("%-28s %-14s %12.1f us\n", op, shape, med);
  fprintf (fid, "search,%s,single,%s,%d,%.1f,%.1f,%.1f,%d,%.1f,\"%s\"\n", op, shape, n, med,
           t(floor (0.1 * (m - 1)) + 1), t(floor (0.9 * (m - 1)) + 1), bytes, bytes / med / 1e3, dev);
endfunction

here = fileparts (mfilename ("fullpath"));
addpath (fullfile (here, "..", "tests"));
gpudot_test_paths ();
n = str2double (getenv ("BENCH_SEARCH_N"));
if (isnan (n))
  n = 1e6;
endif
csv = getenv ("BENCH_CSV");
fid = stdout;
if (! isempty (csv))
  fid = fopen (csv, "a");
endif
info = gpudot_info ();
dev = info.device_name;
d = 768;
randn ("seed", 1);
D = garray (single (randn (d, n)));
q = single (randn (d, 1));
Q = single (randn (d, 100));
bytes = 4 * d * n;
shape = sprintf ("%dx%d", d, n);
function i = loop_search (q, D)
  s = gcosine (q, D);
  [~, i] = sort (s, "descend");
  i = i(1:10);
endfunction
row (fid, "gcosine_then_sort_1q", shape, n, times_of (@() loop_search (q, D), 5), bytes, dev);
row (fid, "gsearch_1q_k10", shape, n, times_of (@() gsearch (q, D, 10), 30), bytes, dev);
row (fid, "gsearch_1q_k10_native", shape, n, times_of (@() gsearch (q, D, 10, "accum", "native"), 30), bytes, dev);
row (fid, "gsearch_100q_k10", shape, n, times_of (@() gsearch (Q, D, 10), 10), bytes, dev);
row (fid, "gsearch_100q_k10_native", shape, n, times_of (@() gsearch (Q, D, 10, "accum", "native"), 10), bytes, dev);
row (fid, "gsearch_100q_k10_dot", shape, n, times_of (@() gsearch (Q, D, 10, "metric", "dot"), 10), bytes, dev);
row (fid, "gsearch_100q_k10_compensated", shape, n, times_of (@() gsearch (Q, D, 10, "accum", "compensated"), 3), bytes, dev);
row (fid, "gsearch_100q_all_garray", shape, n, times_of (@() gsearch (Q, D, "output", "garray"), 5), bytes, dev);
row (fid, "gcosine_1q", shape, n, times_of (@() gcosine (q, D), 30), bytes, dev);
row (fid, "gdot_1q", shape, n, times_of (@() gdot (q, D), 30), bytes, dev);
[S1, I1] = gsearch (Q, D, 10);
[S2, I2] = gsearch (Q, D, 10, "accum", "native");
printf ("native against double: %d of %d indices differ\n", nnz (I1 != I2), numel (I1));
## the CPU engine: host D of 10^5 columns, against the script (BLAS scores, a full sort)
Dh = gather (D(:, 1:1e5));
Qh = Q(:, 1:10);
function I = script_search (Qh, Dh)
  S = (Dh' * Qh) ./ (sqrt (sumsq (Dh, 1))' .* sqrt (sumsq (Qh, 1)));
  [~, I] = sort (S, 1, "descend");
  I = I(1:10, :);
endfunction
row (fid, "cpu_script_10q_k10", sprintf ("%dx%d", d, 1e5), 1e5, times_of (@() script_search (Qh, Dh), 5), 4 * d * 1e5, dev);
row (fid, "cpu_gsearch_10q_k10", sprintf ("%dx%d", d, 1e5), 1e5, times_of (@() gsearch (Qh, Dh, 10), 5), 4 * d * 1e5, dev);
if (fid != stdout)
  fclose (fid);
endif
