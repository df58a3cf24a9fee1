## garray: resident data, its lifecycle, and reductions on it (both engines).

%!shared gpu
%! gpu = gpudot_gpu_available ();
%! warning ("off", "gpudot:noDevice");

%!test
%! ## ranges (1:n, kept lazily by Octave) as garrays and operands: the gateway asks for their
%! ## data before their dimensions (Octave 7.3 leaked 16 bytes a call the other way round,
%! ## which check-valgrind reports)
%! warning ("off", "gpudot:noDevice", "local");
%! g = garray (1:4);
%! assert (gather (g), 1:4);
%! assert (gdot (g, 1:4), 30);
%! assert (gdot (1:4, 2:5), 40);
%! assert (gnorm (1:4, 2, 2), norm (1:4));

%!test
%! ## gather returns the data bit for bit, every class, complexity and shape
%! data = {single(randn(5, 3)), randn(4, 1), complex(randn(2, 3, 4), randn(2, 3, 4)), ...
%!         single(complex(randn(1, 7), 1)), zeros(0, 3), single([NaN Inf -0 1e-40])};
%! for i = 1:numel (data)
%!   g = garray (data{i});
%!   x = gather (g);
%!   assert (class (x), class (data{i}));
%!   assert (size (x), size (data{i}));
%!   assert (iscomplex (x), iscomplex (data{i}));
%!   assert (isequal (typecast (x(:), ifelse (isa (x, "single"), "uint32", "uint64")),
%!                    typecast (data{i}(:), ifelse (isa (x, "single"), "uint32", "uint64"))));
%!   assert (size (g), size (data{i}));
%!   assert (numel (g), ifelse (garray.numel_counts, numel (data{i}), 1));
%!   assert (ndims (g), ndims (data{i}));
%!   assert (rows (g), rows (data{i}));
%!   assert (columns (g), columns (data{i}));
%!   assert (isempty (g), isempty (data{i}));
%!   assert (isreal (g), isreal (data{i}));
%!   assert (classUnderlying (g), class (data{i}));
%!   [r, c] = size (g);
%!   [r2, c2] = size (data{i});
%!   assert ([r c], [r2 c2]);
%! endfor
%!test
%! ## disp shows size, element class and device
%! g = garray (single (ones (3, 4)));
%! s = evalc ("disp (g)");
%! assert (! isempty (strfind (s, "3x4")));
%! assert (! isempty (strfind (s, "single")));
%! assert (! isempty (regexp (s, "GPU|host")));
%!test
%! ## reductions with garrays on either side, mixed with host arrays, every option
%! x = randn (1000, 7);  q = randn (1000, 1);
%! X = garray (x);  Q = garray (q);
%! devs = {"auto", "cpu"};
%! if (gpudot_gpu_available ()) devs{end+1} = "gpu"; endif
%! for d = devs
%!   for acc = {"native", "double", "compensated"}
%!     o = {"accum", acc{1}, "device", d{1}};
%!     ## engines sum in different orders: |difference| <= 2 gamma_n sum |q| |x|
%!     tol = 4 * 1000 * eps * gdot (abs (q), abs (x));
%!     assert (abs (gdot (Q, X, o{:}) - gdot (q, x, o{:})) <= tol);
%!     assert (abs (gdot (q, X, o{:}) - gdot (q, x, o{:})) <= tol);
%!     assert (abs (gdot (X, q, o{:}) - gdot (x, q, o{:})) <= tol);
%!     assert (gdot (X, X, 2, o{:}), gdot (x, x, 2, o{:}), -1e-12);   # sums of squares
%!     assert (gnorm (X, o{:}), gnorm (x, o{:}), -1e-12);
%!     assert (gnorm (X, 1, 2, o{:}), gnorm (x, 1, 2, o{:}), -1e-12);
%!     assert (gnorm (X, Inf, o{:}), gnorm (x, Inf, o{:}));
%!     assert (gcosine (Q, X, o{:}), gcosine (q, x, o{:}), 1e-12);
%!     assert (gcosine (q, X, o{:}), gcosine (q, x, o{:}), 1e-12);
%!   endfor
%! endfor
%! assert (gdot (X, X), sum (x .* x), -1e-12);          # the entry point, squares
%! assert (class (gdot (garray (single (q)), q)), "single");
%! assert (gdot (garray (single (q)), q), single (q' * q), -1e-6);
%! assert (gdot (garray (q), single (q)), single (q' * q), -1e-6);
%!test
%! ## the main use: one query against a resident matrix
%! D = single (randn (768, 2000));  q = single (randn (768, 1));
%! G = garray (D);
%! s = gcosine (q, G);
%! assert (size (s), [1 2000]);
%! assert (s, gcosine (q, D, "device", "cpu"), 1e-6);
%!test
%! ## lifecycle: delete is idempotent; a deleted garray is a clear error
%! n0 = gpudot_info ().garrays;
%! g = garray (randn (10, 1));
%! assert (gpudot_info ().garrays, n0 + 1);
%! assert (gpudot_info ().garray_bytes >= 80);
%! delete (g);
%! delete (g);
%! assert (gpudot_info ().garrays, n0);
%! try
%!   gdot (g, 1);
%!   error ("expected gpudot:badType");
%! catch err
%!   assert (err.identifier, "gpudot:badType");
%! end_try_catch
%! h = garray (randn (10, 1));
%! h2 = h;                          # a second reference: freed when both go
%! clear h
%! assert (gpudot_info ().garrays, n0 + 1);
%! assert (gdot (h2, h2) > 0);
%! clear h2
%! assert (gpudot_info ().garrays, n0);
%!test
%! ## 10^5 create / compute / clear cycles leave nothing behind (10^3 under valgrind or
%! ## compute-sanitizer, which check every allocation themselves)
%! s0 = gpudot_info ();
%! x = randn (64, 1);
%! reps = ifelse (isempty ([getenv("GPUDOT_SANITIZE") getenv("GPUDOT_VALGRIND")]), 1e5, 1e3);
%! for k = 1:reps
%!   g = garray (x);
%!   v = gdot (g, g);
%!   clear g
%! endfor
%! s1 = gpudot_info ();
%! assert (s1.garrays, s0.garrays);
%! assert (s1.garray_bytes, s0.garray_bytes);
%! assert (v, x' * x, -1e-12);
%! if (gpudot_gpu_available () && isempty (getenv ("GPUDOT_SANITIZE")))
%!   assert (s1.memory_free, s0.memory_free);   # (compute-sanitizer takes device memory)
%! endif
%!test
%! ## many garrays alive at once, deleted in random order, the registry's index regrowing
%! ## between deletions: each call finds its own array (on the GPU, through the index)
%! n0 = gpudot_info ().garrays;
%! rand ("seed", 5);
%! m = 700;
%! G = cell (m, 1);
%! for k = 1:m
%!   G{k} = garray ([k; 1; -k]);
%! endfor
%! assert (gpudot_info ().garrays, n0 + m);
%! alive = true (m, 1);
%! for k = randperm (m)(1:500)
%!   G{k} = [];
%!   alive(k) = false;
%! endfor
%! H = cell (400, 1);
%! for k = 1:400
%!   H{k} = garray ([-k; 2]);
%! endfor
%! assert (gpudot_info ().garrays, n0 + m - 500 + 400);
%! for k = find (alive)'
%!   assert (gdot (G{k}, G{k}), 2 * k^2 + 1);
%!   assert (gather (G{k}), [k; 1; -k]);
%! endfor
%! for k = 1:400
%!   assert (gnorm (H{k}, 1), k + 2);
%! endfor
%! clear G H
%! assert (gpudot_info ().garrays, n0);
%!test
%! ## clear functions keeps the MEX (locked while garrays live); clear all frees them
%! dirs = sprintf ("addpath ('%s', '%s', '%s', '%s');", fileparts (which ("garray")),
%!                 fileparts (which ("gdot")), fileparts (which ("__gpudot__")),
%!                 fileparts (which ("gpudot_info")));
%! code = [dirs "warning ('off', 'all'); g = garray (randn (100, 1)); x = gather (g);" ...
%!         "clear functions; assert (gdot (g, g), x' * x, -1e-12); assert (mislocked ('__gpudot__'));" ...
%!         "clear all; s = gpudot_info (); assert (s.garrays, 0); disp ('clear-ok');"];
%! [st, out] = system (sprintf ('octave-cli --no-history --no-init-file --eval "%s" 2>&1', code));
%! assert (st, 0, out);
%! assert (! isempty (strfind (out, "clear-ok")), out);

%!testif ; gpudot_gpu_available () && isempty (getenv ("GPUDOT_SANITIZE"))
%! ## too large for the device: gpudot:outOfMemory with the bytes; nothing half-allocated
%! ## (not under compute-sanitizer, which reports the failed cudaMalloc, as it should)
%! x = ones (2^30, 1, "single");          # 4 GiB a copy
%! g = garray (x(1:4096));                 # the kernels loaded, then no engine buffers
%! gdot (g, g);
%! clear g
%! __gpudot__ ("release");
%! s0 = gpudot_info ();
%! gs = {};
%! try
%!   for k = 1:ceil (s0.memory_total / 2^32) + 2
%!     gs{end+1} = garray (x);
%!   endfor
%!   error ("expected gpudot:outOfMemory");
%! catch err
%!   assert (err.identifier, "gpudot:outOfMemory");
%!   assert (! isempty (strfind (err.message, "4294967296 bytes")), err.message);
%!   assert (! isempty (strfind (err.message, "free")), err.message);
%! end_try_catch
%! assert (gpudot_info ().garrays, s0.garrays + numel (gs));
%! assert (gdot (gs{1}, gs{1}), single (2^30));       # the next call works
%! clear gs
%! __gpudot__ ("release");
%! s1 = gpudot_info ();
%! assert (s1.garrays, s0.garrays);
%! assert (abs (s1.memory_free - s0.memory_free) < 2^20);

%!error <Invalid call> garray ()
%!error id=gpudot:badType garray (true)
%!error id=gpudot:badType garray ("abc")
%!error id=gpudot:badType garray (int8 (1))
%!error id=gpudot:badType garray (sparse (1))
%!error id=gpudot:badType garray ({1})
%!error <garray: X must be a full single or double array> garray (uint16 (3))
