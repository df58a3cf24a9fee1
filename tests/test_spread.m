## Host data on several GPUs: calls on host data reducing runs are spread over the GPUs,
## one staging ring each, with the same bits for any number and order of devices (on a
## one-GPU machine, several parts on that GPU, one after another), within the error
## bounds of the references.  __gpudot__ ("spread_devices", D) names the devices;
## "staging_cap" makes the chunks short, so that small data reaches many of them.

%!shared ndev
%! warning ("off", "gpudot:noDevice");
%! s = gpudot_info ();
%! ndev = s.device_count;

%!error <spread_devices takes a list> __gpudot__ ("spread_devices", "all")
%!error <integers from 0> __gpudot__ ("spread_devices", -1)

%!testif ; gpudot_gpu_available ()
%! ## a device that is not there
%! try
%!   __gpudot__ ("spread_devices", [0 ndev]);
%!   error ("no error");
%! catch err
%!   assert (err.identifier, "gpudot:noDevice");
%!   assert (! isempty (strfind (err.message, sprintf ("no GPU %d", ndev))), err.message);
%! end_try_catch

%!function check_spread (layouts, fn, args, ref, tol)
%!  ## fn (args{:}, "device", "gpu") spread over every layout: the same bits each time,
%!  ## within tol of ref
%!  first = [];
%!  what = sprintf ("%s (%s)", func2str (fn),
%!                  strjoin (cellfun (@(a) mat2str (size (a)), args, "uniformoutput", false), " "));
%!  unwind_protect
%!    for i = 1:numel (layouts)
%!      __gpudot__ ("spread_devices", layouts{i});
%!      first = check_layout_value (i, fn (args{:}, "device", "gpu"), first, ref, tol, what);
%!    endfor
%!  unwind_protect_cleanup
%!    __gpudot__ ("spread_devices", []);
%!  end_unwind_protect
%!endfunction

%!testif ; gpudot_gpu_available ()
%! ## every op, class, complexity and mode; vectors in many chunks (a 40 kB cap), matrices
%! ## cut between columns, with long columns chunked (40 kB) or whole (1 MB: columns of
%! ## 12001 doubles keep their addresses modulo 16 in any part)
%! layouts = device_layouts (ndev);
%! shapes = {[23457 1], [1 4999], [300 41], [12001 3]};
%! unwind_protect
%!   for cap = [40000 2^20]
%!     __gpudot__ ("staging_cap", cap);
%!     for c = {"double", "single"}
%!       for cp = [false true]
%!         for s = shapes
%!           [x, y, xd, yd, n, u] = layout_data (s{1}, c{1}, cp);
%!           for acc = {"native", "double", "compensated"}
%!             uu = layout_tol (acc{1}, u, n, 0);
%!             for k = column_cases (x, y, xd, yd, n, uu, acc{1})
%!               check_spread (layouts, k.fn, [{k.a}, ifelse(isempty (k.b), {}, {k.b}), k.args],
%!                             k.ref, k.tol);
%!             endfor
%!           endfor
%!         endfor
%!       endfor
%!     endfor
%!   endfor
%! unwind_protect_cleanup
%!   __gpudot__ ("staging_cap", 0);
%! end_unwind_protect

%!testif ; gpudot_gpu_available ()
%! ## the two-step norms and cosines rerun scaled where the fast sums overflow: same bits
%! ## on every layout
%! layouts = device_layouts (ndev);
%! __gpudot__ ("staging_cap", 20000);
%! unwind_protect
%!   x = [1e300 * ones(2000, 1); randn(1500, 1)];  y = [randn(3000, 1); 1e-300 * ones(500, 1)];
%!   check_spread (layouts, @gnorm, {x}, norm (x), 8 * eps * norm (x));
%!   r = gcosine (x, y, "device", "cpu");
%!   check_spread (layouts, @gcosine, {x, y}, r, 16 * eps);
%!   s = single ([1e30 * ones(900, 1); 1e-30 * ones(900, 1)]);
%!   check_spread (layouts, @gnorm, {s, 2, "accum", "native"}, norm (double (s)),
%!                 4 * 1800 * eps ("single") * norm (double (s)));
%! unwind_protect_cleanup
%!   __gpudot__ ("staging_cap", 0);
%! end_unwind_protect

%!testif ; gpudot_gpu_available ()
%! ## the default chunks (no cap): a vector of a few chunks and a bit, columns of 2; then
%! ## a call large enough to spread over every GPU by itself, against one GPU
%! layouts = device_layouts (ndev);
%! x = single (randn (3 * 2^19 + 5, 1));  y = single (randn (3 * 2^19 + 5, 1));
%! ref = sum (double (x) .* double (y));
%! check_spread (layouts, @gdot, {x, y}, ref, 1e-3 * sum (abs (double (x) .* double (y))));
%! check_spread (layouts, @gdot, {x, y, "accum", "compensated"}, ref, eps ("single") * abs (ref));
%! A = randn (2, 2^19 + 1);
%! check_spread (layouts, @gnorm, {A}, vecnorm (A), 4 * eps * vecnorm (A));
%! x = single (randn (2^24 + 77, 1));  y = single (randn (2^24 + 77, 1));
%! v = gdot (x, y, "device", "gpu");          # 128 MB: up to 4 GPUs
%! check_spread ({0, [0 0 0]}, @gdot, {x, y}, v, 0);
%! C = single (randn (1000, 9001));
%! v = gcosine (C, C(:, end:-1:1), "device", "gpu");
%! check_spread ({0, [0 0 0]}, @gcosine, {C, C(:, end:-1:1)}, v, zeros (1, 9001));

%!testif ; gpudot_gpu_available () && isempty (getenv ("GPUDOT_SANITIZE"))
%! ## an allocation that fails in a later part: gpudot:outOfMemory, and the next calls work
%! code = [
%!   "s = gpudot_info (); last = s.device_count - 1; x = randn (1e6, 1);"
%!   "__gpudot__ ('release'); __gpudot__ ('spread_devices', [0:last 0:last]);"
%!   "__gpudot__ ('__fault__', 'alloc', last, 3);"
%!   "try, gdot (x, x, 'device', 'gpu'); disp ('NOERROR');"
%!   "catch err, printf ('%s [%s]\\n', err.identifier, err.message); end;"
%!   "printf ('after %d\\n', abs (gdot (x, x, 'device', 'gpu') - sumsq (x)) < 1e-10 * sumsq (x));"
%!   "__gpudot__ ('spread_devices', []);"
%!   "printf ('again %d\\n', abs (gnorm (x, 'device', 'gpu') - norm (x)) < 1e-12 * norm (x));"
%! ];
%! [st, out] = child_octave (strjoin (cellstr (code), "\n"));
%! assert (st, 0, out);
%! assert (! isempty (strfind (out, "gpudot:outOfMemory [gdot: ")), out);
%! assert (isempty (strfind (out, "NOERROR")), out);
%! assert (! isempty (strfind (out, "after 1")), out);
%! assert (! isempty (strfind (out, "again 1")), out);
