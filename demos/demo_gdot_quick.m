## Short gdot demo: what it computes, on which engine, how accurately and how fast.
info = gpudot_info ();
printf ("gpudot %s: backend %s", info.version, info.backend);
if (strcmp (info.backend, "cuda"))
  printf (" on %s (compute capability %s, %.1f GiB)", info.device_name,
          info.compute_capability, info.memory_total / 2^30);
endif
printf ("\n\n");
warning ("off", "gpudot:noDevice");

x = [1 2 3];  y = [4 5 6];
printf ("gdot ([1 2 3], [4 5 6])            = %g   (dot: %g)\n", gdot (x, y), dot (x, y));
printf ("gdot (int8 ([100 100]), int8 ([100 1])) = %g   (dot saturates: %g)\n",
        gdot (int8 ([100 100]), int8 ([100 1])), dot (int8 ([100 100]), int8 ([100 1])));
printf ("gdot (ones (3, 1), magic (3))      = %s   (a vector against each column)\n\n",
        mat2str (gdot (ones (3, 1), magic (3))));

n = 2^24;
o = ones (n + 2^24, 1, "single");
printf ("sum of 2^25 single ones:  dot %.0f   gdot native %.0f   gdot double %.0f\n\n",
        dot (o, o), gdot (o, o, "accum", "native"), gdot (o, o));
clear o

rand ("seed", 1);
x = single (rand (n, 1));  y = single (rand (n, 1));
ref = sum (double (x) .* double (y));
printf ("n = 2^24 random singles: relative error against a double reference\n");
printf ("  dot (single)         %.2e\n", abs (double (dot (x, y)) - ref) / ref);
for acc = {"native", "double", "compensated"}
  printf ("  gdot %-16s %.2e\n", acc{1}, abs (double (gdot (x, y, "accum", acc{1})) - ref) / ref);
endfor

printf ("\nmedian time per call, n = 2^24 single (host data):\n");
devs = {"cpu"};
if (gpudot_gpu_available ())
  devs{end+1} = "gpu";
endif
t = zeros (1, 7);
for k = 1:7
  tic; dot (x, y); t(k) = toc;
endfor
printf ("  dot                  %8.3f ms\n", 1e3 * median (t));
for d = devs
  gdot (x, y, "device", d{1});
  for k = 1:7
    tic; gdot (x, y, "device", d{1}); t(k) = toc;
  endfor
  printf ("  gdot device=%-8s %8.3f ms\n", d{1}, 1e3 * median (t));
endfor

printf ("\ngnorm never overflows or underflows where the norm is representable:\n");
printf ("  norm ([1e200 1e200]) = %g   gnorm = %g\n", norm ([1e200 1e200]), gnorm ([1e200 1e200]));
printf ("  gnorm ([1e-310 1e-310]) = %g\n", gnorm ([1e-310 1e-310]));
printf ("  gcosine ([1e200 0], [1e200 0]) = %g\n", gcosine ([1e200 0], [1e200 0]));

printf ("\nresident data (garray): one query against 2^14 columns of 768 singles\n");
D = single (randn (768, 2^14));  q = single (randn (768, 1));
G = garray (D);
gcosine (q, G);
t = zeros (1, 7);  tc = t;
for k = 1:7
  tic; s = gcosine (q, G); t(k) = toc;
  tic; sc = gcosine (q, D, "device", "cpu"); tc(k) = toc;
endfor
printf ("  gcosine on the garray %8.3f ms, on host data (CPU engine) %8.3f ms, max diff %.1e\n",
        1e3 * median (t), 1e3 * median (tc), max (abs (double (s) - double (sc))));
clear G
