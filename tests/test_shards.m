## garrays on several GPUs: the "devices" option, gather, and results with the same bits
## for any number and order of shards (on a one-GPU machine, several shards on that GPU),
## within the error bounds of the one-GPU results; faults in child processes.

%!shared ndev
%! warning ("off", "gpudot:noDevice");
%! s = gpudot_info ();
%! ndev = s.device_count;

## bad "devices" are refused before any GPU is asked for
%!error <DEVICES must be "all"> garray (1, "devices", "some")
%!error <DEVICES must be "all"> garray (1, "devices", [])
%!error <DEVICES must be "all"> garray (1, "devices", zeros (1, 65))
%!error <integers from 0> garray (1, "devices", -1)
%!error <integers from 0> garray (1, "devices", [0 0.5])
%!error <integers from 0> garray (1, "devices", NaN)
%!error <the only option is "devices"> garray (1, "device", 0)
%!error <Invalid call> garray (1, "devices")

%!testif ; ! gpudot_gpu_available ()
%! ## without a GPU, "devices" keeps the data on the host, as garray (x) does: scripts
%! ## written for several GPUs run anywhere
%! warning ("off", "gpudot:noDevice", "local");
%! for d = {0, [0 1], "all", "ALL"}
%!   g = garray (1:3, "devices", d{1});
%!   assert (gather (g), 1:3);
%!   assert (gdot (g, g), 14);
%! endfor

%!testif ; gpudot_gpu_available ()
%! ## a device that is not there
%! s = gpudot_info ();
%! try
%!   garray (1:3, "devices", s.device_count);
%!   error ("no error");
%! catch err
%!   assert (err.identifier, "gpudot:noDevice");
%!   assert (! isempty (strfind (err.message, sprintf ("no GPU %d", s.device_count))));
%! end_try_catch

%!testif ; gpudot_gpu_available ()
%! ## gather, size and display; "all" takes every GPU; freed with the last reference
%! s0 = gpudot_info ();
%! __gpudot__ ("shard_chunk", 1000);
%! unwind_protect
%!   data = {randn(5000, 1), single(randn(1, 4321)), complex(randn(7, 9), randn(7, 9)), ...
%!           single(randn(3, 4, 5)), zeros(0, 3), 1};
%!   for i = 1:numel (data)
%!     for d = {[0 0 0], "all", zeros(1, 8)}
%!       g = garray (data{i}, "devices", d{1});
%!       x = gather (g);
%!       assert (class (x), class (data{i}));
%!       assert (isequal (x, data{i}));
%!       assert (size (g), size (data{i}));
%!       s = evalc ("disp (g)");
%!       assert (! isempty (regexp (s, "GPU")));
%!     endfor
%!   endfor
%!   g = garray (ones (3), "devices", "ALL");
%!   assert (numel (g.devices), s0.device_count);
%!   clear g
%!   s1 = gpudot_info ();
%!   assert (s1.garrays, s0.garrays);
%!   assert (s1.garray_bytes, s0.garray_bytes);
%! unwind_protect_cleanup
%!   __gpudot__ ("shard_chunk", 0);
%! end_unwind_protect

%!function check_layouts (x, y, layouts, fn, args, ref, tol)
%!  ## fn (X, Y, args{:}) with X (and Y where given) on every layout: the same bits each
%!  ## time, within tol of ref
%!  first = [];
%!  what = sprintf ("%s (%s %s%s, %s)", func2str (fn), mat2str (size (x)),
%!                  ifelse (iscomplex (x), "complex ", ""), class (x),
%!                  strjoin (cellfun (@num2str, args, "uniformoutput", false), " "));
%!  for i = 1:numel (layouts)
%!    X = garray (x, "devices", layouts{i});
%!    if (isempty (y))
%!      v = fn (X, args{:});
%!    elseif (iscell (y))          # y on the host
%!      v = fn (X, y{1}, args{:});
%!    else
%!      v = fn (X, garray (y, "devices", layouts{i}), args{:});
%!    endif
%!    assert (class (v), class (x));
%!    first = check_layout_value (i, v, first, ref, tol, what);
%!  endfor
%!endfunction

%!testif ; gpudot_gpu_available ()
%! ## every op, class, complexity and mode: vectors cut into chunks (short chunks to reach
%! ## many of them), matrices cut between columns, with long columns chunked too
%! __gpudot__ ("shard_chunk", 5000);
%! unwind_protect
%!   layouts = device_layouts (ndev);
%!   shapes = {[23457 1], [1 4999], [5000 1], [300 41], [12001 3]};
%!   for c = {"double", "single"}
%!     for cp = [false true]
%!       for s = shapes
%!         [x, y, xd, yd, n, u] = layout_data (s{1}, c{1}, cp);
%!         for acc = {"native", "double", "compensated"}
%!           uu = layout_tol (acc{1}, u, n, 0);
%!           for k = column_cases (x, y, xd, yd, n, uu, acc{1})
%!             b = k.b;
%!             if (k.host_b)
%!               b = {b};                 # b on the host: each shard uploads its slice
%!             endif
%!             check_layouts (k.a, b, layouts, k.fn, k.args, k.ref, k.tol);
%!           endfor
%!           if (! isvector (x))
%!             ## rows (dimension 2): the shards' columns in chunks, a state for each row
%!             m = columns (xd);
%!             refr = sum (conj (xd) .* yd, 2);
%!             tolr = 2 * m * uu * sum (abs (xd) .* abs (yd), 2) + realmin;
%!             check_layouts (x, y, layouts, @gdot, {2, "accum", acc{1}}, refr, tolr);
%!             check_layouts (x, {y}, layouts, @gdot, {2, "accum", acc{1}}, refr, tolr);
%!             col = y(:, 1);                 # a host column beside every column
%!             refb = sum (conj (xd) .* double (col), 2);
%!             check_layouts (x, {col}, layouts, @gdot, {2, "accum", acc{1}}, refb,
%!                            2 * m * uu * sum (abs (xd) .* abs (double (col)), 2) + realmin);
%!             for p = {2, Inf}
%!               refn = vecnorm (xd, p{1}, 2);
%!               check_layouts (x, [], layouts, @gnorm, {p{1}, 2, "accum", acc{1}}, refn,
%!                              4 * m * uu * refn + realmin);
%!             endfor
%!             refc = refr ./ (vecnorm (xd, 2, 2) .* vecnorm (yd, 2, 2));
%!             check_layouts (x, y, layouts, @gcosine, {2, "accum", acc{1}}, refc, 8 * m * uu + 0 * refc);
%!           endif
%!         endfor
%!       endfor
%!     endfor
%!   endfor
%! unwind_protect_cleanup
%!   __gpudot__ ("shard_chunk", 0);
%! end_unwind_protect

%!testif ; gpudot_gpu_available ()
%! ## "exact" on every layout: the CPU engine's bits (dot products, norms and cosines of
%! ## vectors and columns, real and complex, products over most of the exponent range;
%! ## the device kernel on every GPU at once, the host merging runs cut between pieces)
%! __gpudot__ ("shard_chunk", 1000);
%! unwind_protect
%!   randn ("seed", 31);  rand ("seed", 31);
%!   x = randn (5003, 1) .* 2 .^ randi ([-400 400], 5003, 1);  y = randn (5003, 1);
%!   X = randn (300, 7);  Y = randn (300, 7) .* 2 .^ randi ([-40 40], 300, 7);
%!   Z = complex (randn (400, 3), randn (400, 3));  W = complex (randn (400, 3), 1);
%!   V = randn (50, 70) .* 2 .^ randi ([-500 500], 50, 70);  U = randn (50, 70);
%!   sx = single (randn (5003, 1) .* 2 .^ randi ([-60 60], 5003, 1));  sy = single (y);
%!   c = {"accum", "exact", "device", "cpu"};
%!   bits = @(v) num2hex ([real(v(:)); imag(v(:))]);
%!   same = @(g, want) assert (bits (gather (g)), bits (want));
%!   for l = device_layouts (ndev)
%!     d = {"devices", l{1}};
%!     gx = garray (x, d{:});  gy = garray (y, d{:});  gX = garray (X, d{:});  gY = garray (Y, d{:});
%!     gZ = garray (Z, d{:});  gW = garray (W, d{:});  gs = garray (single (X), d{:});
%!     gV = garray (V, d{:});  gU = garray (U, d{:});
%!     same (gdot (gx, gy, c{1:2}), gdot (x, y, c{:}));
%!     same (gdot (gX, gY, c{1:2}), gdot (X, Y, c{:}));
%!     same (gdot (gX, gY, 2, c{1:2}), gdot (X, Y, 2, c{:}));
%!     same (gdot (gZ, gW, c{1:2}), gdot (Z, W, c{:}));
%!     same (gdot (gs, gs, c{1:2}), gdot (single (X), single (X), c{:}));
%!     for p = {1, 2, Inf, -Inf, 0}
%!       same (gnorm (gx, p{1}, c{1:2}), gnorm (x, p{1}, c{:}));
%!       same (gnorm (gX, p{1}, 1, c{1:2}), gnorm (X, p{1}, 1, c{:}));
%!       same (gnorm (gZ, p{1}, 1, c{1:2}), gnorm (Z, p{1}, 1, c{:}));
%!     endfor
%!     same (gcosine (gx, gy, c{1:2}), gcosine (x, y, c{:}));
%!     same (gcosine (gX, gY, c{1:2}), gcosine (X, Y, c{:}));
%!     same (gcosine (gZ, gW, c{1:2}), gcosine (Z, W, c{:}));
%!     ## singles' runs cut between pieces, twice (the device's digits left zero after each
%!     ## call); columns whose records pass the mapped area; a host operand beside them
%!     gsx = garray (sx, d{:});  gsy = garray (sy, d{:});
%!     for twice = 1:2
%!       same (gdot (gsx, gsy, c{1:2}), gdot (sx, sy, c{:}));
%!       same (gcosine (gsx, gsy, c{1:2}), gcosine (sx, sy, c{:}));
%!       same (gnorm (gsx, 2, c{1:2}), gnorm (sx, 2, c{:}));
%!       same (gnorm (gsx, 1, c{1:2}), gnorm (sx, 1, c{:}));
%!       same (gcosine (gV, gU, c{1:2}), gcosine (V, U, c{:}));
%!       same (gdot (gV, gU, c{1:2}), gdot (V, U, c{:}));
%!     endfor
%!     same (gdot (gx, y, c{1:2}), gdot (x, y, c{:}));
%!     same (gcosine (gX, Y(:, 1), c{1:2}), gcosine (X, Y(:, 1), c{:}));
%!   endfor
%! unwind_protect_cleanup
%!   __gpudot__ ("shard_chunk", 0);
%! end_unwind_protect

%!testif ; gpudot_gpu_available ()
%! ## empty runs in pieces (no piece holds an element): every output an empty sum, 0, and a
%! ## cosine 0 / 0, NaN, in every mode
%! for l = device_layouts (ndev)
%!   d = {"devices", l{1}};
%!   e = garray (zeros (1, 0), d{:});  E = garray (single (zeros (0, 3)), d{:});
%!   for acc = {"native", "double", "compensated", "exact"}
%!     a = {"accum", acc{1}};
%!     assert (gather (gdot (e, e, a{:})), 0);
%!     assert (gather (gnorm (e, a{:})), 0);
%!     assert (gather (gnorm (e, 1, a{:})), 0);
%!     assert (gather (gcosine (e, e, a{:})), NaN);
%!     assert (gather (gcosine (e, zeros (1, 0), a{:})), NaN);
%!     assert (gather (gdot (E, E, a{:})), single (zeros (1, 3)));
%!     assert (gather (gcosine (E, E, a{:})), single (NaN (1, 3)));
%!   endfor
%! endfor

%!testif ; gpudot_gpu_available ()
%! ## the two-step norms and cosines rerun scaled where the fast sums overflow: same bits
%! ## on every layout, and the values of one GPU
%! __gpudot__ ("shard_chunk", 700);
%! unwind_protect
%!   layouts = device_layouts (ndev);
%!   x = [1e300 * ones(2000, 1); randn(1500, 1)];  y = [randn(3000, 1); 1e-300 * ones(500, 1)];
%!   check_layouts (x, [], layouts, @gnorm, {}, norm (x), 8 * eps * norm (x));
%!   r = gcosine (x, y);
%!   check_layouts (x, y, layouts, @gcosine, {}, r, 16 * eps);
%!   s = single ([1e30 * ones(900, 1); 1e-30 * ones(900, 1)]);
%!   check_layouts (s, [], layouts, @gnorm, {2, "accum", "native"}, norm (double (s)),
%!                  4 * 1800 * eps ("single") * norm (double (s)));
%! unwind_protect_cleanup
%!   __gpudot__ ("shard_chunk", 0);
%! end_unwind_protect

%!testif ; gpudot_gpu_available ()
%! ## the default chunk (2^22): a vector of 3 chunks and a bit, and 2^22 + 1 columns of 2
%! layouts = device_layouts (ndev);
%! x = single (randn (3 * 2^22 + 5, 1));  y = single (randn (3 * 2^22 + 5, 1));
%! ref = sum (double (x) .* double (y));
%! check_layouts (x, y, layouts, @gdot, {}, ref, 1e-3 * sum (abs (double (x) .* double (y))));
%! check_layouts (x, y, layouts, @gdot, {"accum", "compensated"}, ref, eps ("single") * abs (ref));
%! A = randn (2, 2^22 + 1);
%! check_layouts (A, [], layouts, @gnorm, {}, vecnorm (A), 4 * eps * vecnorm (A));

%!testif ; gpudot_gpu_available ()
%! ## what a garray on several GPUs refuses: other dimensions, a garray of one GPU beside
%! ## it, the ladder; "cpu" gathers it
%! G = garray (randn (40, 30), "devices", [0 0]);
%! H = garray (randn (40, 30));
%! fails = {@() gdot (G, G, 3), "badDim"; @() gnorm (garray (randn (4, 3, 2), "devices", [0 0]), 2, 2), "badDim";
%!          @() gdot (G, H), "sizeMismatch";
%!          @() gdot (G, garray (randn (40, 30), "devices", [0 0 0])), "sizeMismatch";
%!          @() gdot (garray (1:10, "devices", [0 0]), 1:10, "kernel", 1), "badOption"};
%! for i = 1:rows (fails)
%!   try
%!     fails{i, 1} ();
%!     error ("no error for case %d", i);
%!   catch err
%!     assert (err.identifier, ["gpudot:" fails{i, 2}]);
%!     if (strcmp (fails{i, 2}, "badDim"))          # (the DIM is valid: the layout refuses it)
%!       assert (strncmp (err.message, "gdot: DIM not supported", 23) ...
%!               || strncmp (err.message, "gnorm: DIM not supported", 24), err.message);
%!       assert (! isempty (strfind (err.message, "several GPUs")), err.message);
%!     endif
%!   end_try_catch
%! endfor
%! A = gather (G);
%! assert (gdot (G, A, "device", "cpu"), gdot (A, A, "device", "cpu"));

%!testif ; gpudot_gpu_available () && isempty (getenv ("GPUDOT_SANITIZE"))
%! ## an allocation that fails on a later shard: the error of one GPU, nothing kept, the
%! ## shards already made freed, and the GPUs usable after
%! code = [
%!   "s0 = gpudot_info (); __gpudot__ ('shard_chunk', 1000);"
%!   "__gpudot__ ('__fault__', 'alloc', 0, 2);"
%!   "try, garray (randn (1e5, 1), 'devices', [0 0 0 0]); disp ('NOERROR');"
%!   "catch err, disp (err.identifier); disp (err.message); end;"
%!   "s1 = gpudot_info ();"
%!   "printf ('garrays %d %d bytes %d %d\\n', s0.garrays, s1.garrays, s0.garray_bytes, s1.garray_bytes);"
%!   "printf ('free %d\\n', abs (s1.memory_free - s0.memory_free) < 2^24);"
%!   "g = garray ((1:100)', 'devices', [0 0]);"
%!   "printf ('after %d\\n', gdot (g, g) == 338350);"
%! ];
%! [st, out] = child_octave (strjoin (cellstr (code), "\n"));
%! assert (st, 0, out);
%! assert (! isempty (strfind (out, "gpudot:outOfMemory")), out);
%! assert (! isempty (strfind (out, "on GPU 0")), out);
%! assert (! isempty (regexp (out, "garrays (\\d+) \\1 bytes (\\d+) \\2")), out);
%! assert (! isempty (strfind (out, "free 1")), out);
%! assert (! isempty (strfind (out, "after 1")), out);

%!testif ; gpudot_gpu_available () && isempty (getenv ("GPUDOT_SANITIZE"))
%! ## a kernel that faults on the last device of a call: the error names that GPU; CUDA
%! ## is then lost to the process (its rule: a second GPU's next call failed the same way),
%! ## so every later call on any GPU says so, and freeing garrays is skipped, not a crash
%! code = [
%!   "s = gpudot_info (); last = s.device_count - 1; __gpudot__ ('shard_chunk', 1000);"
%!   "g = garray (randn (1e5, 1), 'devices', 0:last);"
%!   "h = garray ((1:100)', 'devices', 0);"
%!   "__gpudot__ ('__fault__', 'trap', last);"
%!   "try, gdot (g, g); disp ('NOERROR'); catch err, printf ('fault %s [%s]\\n', err.identifier, err.message); end;"
%!   "try, gdot (h, h); disp ('NOERROR'); catch err, printf ('other %s [%s]\\n', err.identifier, err.message); end;"
%!   "try, gdot (g, g); disp ('NOERROR'); catch err, printf ('again %s\\n', err.identifier); end;"
%!   "clear g h; disp ('cleared');"
%! ];
%! [st, out] = child_octave (strjoin (cellstr (code), "\n"));
%! assert (st, 0, out);
%! s = gpudot_info ();
%! lost = sprintf ('a kernel fault on GPU %d: CUDA is lost to this process', s.device_count - 1);
%! assert (! isempty (strfind (out, ["fault gpudot:cuda [gdot: CUDA error ("])), out);
%! assert (! isempty (strfind (out, lost)), out);
%! assert (! isempty (regexp (out, ["other gpudot:cuda \\[[^\\n]*" lost])), out);
%! assert (! isempty (strfind (out, "again gpudot:cuda")), out);
%! assert (! isempty (strfind (out, "cleared")), out);
%! assert (isempty (strfind (out, "NOERROR")), out);
