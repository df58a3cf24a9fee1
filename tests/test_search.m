## The best k and the similarity search: garray's maxk and mink against a stable sort
## (tests/ref_topk.m), on the device and on the host; gsearch against double references computed
## here, its indices against a stable sort of its own scores, the CPU engine against the
## GPU, parts on several GPUs (or several parts on one), and its errors.

%!function x = tricky (sz, cls)
%!  ## ties, NaN, +-Inf, +-0 among random values
%!  pool = [-Inf, -2, -0, 0, 1, 1, 2, 2, 3.5, Inf, NaN, NaN];
%!  x = randn (sz);
%!  pick = rand (sz) < 0.5;
%!  x(pick) = pool(randi (numel (pool), nnz (pick), 1));
%!  x = cast (x, cls);
%!endfunction

%!function check_topk (x, k, dim)
%!  g = garray (x);
%!  for is_min = [false true]
%!    fn = ifelse (is_min, @mink, @maxk);
%!    if (nargin > 2)
%!      [v, i] = fn (g, k, dim);
%!    else
%!      [v, i] = fn (g, k);
%!      dim = find (size (x) != 1, 1);
%!      if (isempty (dim))
%!        dim = 1;
%!      endif
%!    endif
%!    [rv, ri] = ref_topk (x, k, dim, is_min);
%!    assert (i, ri);
%!    assert (isequaln (v, rv) && strcmp (class (v), class (x)));
%!    assert (isequal (signbit (v(! isnan (v))), signbit (rv(! isnan (rv)))));
%!  endfor
%!endfunction

%!test
%! ## maxk and mink: a stable sort's first k, any k and dim, ties, NaN, Inf, signed zeros
%! warning ("off", "gpudot:noDevice", "local");
%! rand ("seed", 3); randn ("seed", 3);
%! for cls = {"double", "single"}
%!   for sz = {[1 1], [1 7], [7 1], [5 6], [3 4 2], [1 1000], [1000 3], [2 3000], [40 1 9]}
%!     x = tricky (sz{1}, cls{1});
%!     for k = [0 1 2 5 37 300]
%!       check_topk (x, k);
%!       for dim = 1:4
%!         check_topk (x, k, dim);
%!       endfor
%!     endfor
%!   endfor
%! endfor

%!test
%! ## long runs (the device deals them to lists and merges those), sorted inputs (every
%! ## element enters the lists), all NaN, all equal, and k at the device's limit
%! warning ("off", "gpudot:noDevice", "local");
%! rand ("seed", 4); randn ("seed", 4);
%! slow = ! isempty ([getenv("GPUDOT_SANITIZE") getenv("GPUDOT_VALGRIND")]);
%! x = randn (1, ifelse (slow, 3e4, 3e5));
%! for k = [1 10 256 257]
%!   check_topk (x, k);
%!   check_topk (sort (x), k);
%!   check_topk (sort (x, "descend"), k);
%! endfor
%! check_topk (NaN (1, 5000), 10);
%! check_topk (ones (1, 5000), 10);
%! check_topk (single (randn (300, 400)), 20, 2);
%! check_topk (randn (3, 5e4), 7, 2);

%!test
%! ## complex garrays: by magnitude, then argument, as max orders them (through the host)
%! warning ("off", "gpudot:noDevice", "local");
%! x = [1+1i, -1-1i, 2, NaN, -2, 1i];
%! [v, i] = maxk (garray (x), 4);
%! assert (i, [5 3 1 2]);     # sort (x, "descend") without its leading NaN
%! assert (v, x(i));
%! [v, i] = mink (garray (x), 3);
%! assert (i, [6 2 1]);       # sort (x)
%! [v, i] = maxk (garray (complex (zeros (2, 0))), 1);
%! assert (size (v), [1 0]);
%! ## complex with every imaginary part zero: still by magnitude (the GPU's copy comes
%! ## back from the MEX real; gather makes it complex again)
%! x = complex ([-1.5; 0.3; 0.2], 0);
%! assert (iscomplex (gather (garray (x))));
%! [v, i] = mink (garray (x), 5);
%! assert (i, [3; 2; 1]);
%! assert (isequal (v, x(i)));

%!test
%! ## empties: Octave's shapes, k rows or fewer
%! warning ("off", "gpudot:noDevice", "local");
%! [v, i] = maxk (garray (zeros (0, 3)), 2);
%! assert (size (v), [0 3]);
%! assert (size (i), [0 3]);
%! [v, i] = maxk (garray (zeros (4, 0)), 2);
%! assert (size (v), [2 0]);
%! [v, i] = mink (garray (single (1:5)), 0);
%! assert (size (v), [1 0]);
%! assert (class (v), "single");

%!shared g
%! warning ("off", "gpudot:noDevice");
%! g = garray ([3 1 2]);
%!error id=gpudot:badOption maxk (g, -1)
%!error id=gpudot:badOption maxk (g, 1.5)
%!error id=gpudot:badOption maxk (g, NaN)
%!error id=gpudot:badOption maxk (g, Inf)
%!error id=gpudot:badOption mink (g, [1 2])
%!error id=gpudot:badOption mink (g, "a")
%!error id=gpudot:badDim maxk (g, 1, 0)
%!error id=gpudot:badDim maxk (g, 1, 1.5)
%!error id=Octave:invalid-fun-call maxk (g)
%!error id=gpudot:gatherFirst maxk (g, garray (1))

%!function [S, I] = ref_search (Q, D, cosine)
%!  ## scores in double (exact products of singles), rounded to D's class
%!  Qd = double (Q);
%!  Dd = double (D);
%!  S = Dd' * Qd;
%!  if (cosine)
%!    S = S ./ (sqrt (sumsq (Dd, 1))' .* sqrt (sumsq (Qd, 1)));
%!    S(isinf (S) | ! isfinite (sumsq (Dd, 1))' | ! isfinite (sumsq (Qd, 1))) = NaN;
%!    S(S > 1) = 1;
%!    S(S < -1) = -1;
%!  endif
%!  S = cast (S, class (D));
%!endfunction

%!function check_search (Q, D, k, args, on)
%!  ## the scores within the mode's bound of the double reference; the indices those of a
%!  ## stable sort of the same call's every score
%!  cosine = ! any (strcmpi (args, "dot"));
%!  native = any (strcmpi (args, "native"));
%!  Sall = gsearch (Q, D, args{:});
%!  R = ref_search (Q, gather (D), cosine);
%!  assert (size (Sall), [columns(D) columns(Q)]);
%!  assert (class (Sall), class (gather (D)));
%!  d = rows (Q);
%!  u = ifelse (native && isa (gather (D), "single"), eps ("single"), eps);
%!  if (cosine)
%!    tol = 4 * eps (class (gather (D))) + 2 * (d + 4) * u;
%!  else
%!    mag = abs (double (gather (D)))' * abs (double (Q));
%!    tol = 2 * eps (class (gather (D))) * abs (double (R)) + (d + 2) * u * mag;
%!  endif
%!  assert (isnan (Sall), isnan (R));
%!  assert (Sall(isinf (R)), R(isinf (R)));
%!  ok = isfinite (R);
%!  err = abs (double (Sall(ok)) - double (R(ok)));
%!  tol = tol .* ones (size (R));
%!  assert (all (err <= tol(ok) + realmin));
%!  [S, I] = gsearch (Q, D, k, args{:});
%!  kk = min (k, columns (D));
%!  assert (size (S), [kk columns(Q)]);
%!  assert (size (I), [kk columns(Q)]);
%!  [~, ord] = sort (-Sall, 1);
%!  assert (I, ord(1:kk, :));
%!  assert (isequaln (S, Sall(sub2ind (size (Sall), I, repmat (1:columns (Q), kk, 1)))));
%!endfunction

%!test
%! ## the CPU engine: host arrays, every mode and metric, k above and below n
%! rand ("seed", 5); randn ("seed", 5);
%! for cls = {"single", "double"}
%!   D = cast (randn (24, 700), cls{1});
%!   D(:, 7) = 0;
%!   D(:, 9) = D(:, 8);
%!   Q = cast (randn (24, 6), cls{1});
%!   Q(:, 2) = D(:, 8);
%!   for args = {{}, {"metric", "dot"}, {"accum", "native"}, {"Accum", "Compensated"}, {"device", "cpu"}}
%!     for k = [0 1 10 257 800]
%!       check_search (Q, D, k, args{1});
%!     endfor
%!     ## "output", "garray" (garrays on the host where no GPU is usable)
%!     S = gsearch (Q, D, "output", "garray", args{1}{:});
%!     [Sk, Ik] = gsearch (Q, D, 10, "output", "garray", args{1}{:});
%!     [Sh, Ih] = gsearch (Q, D, 10, args{1}{:});
%!     assert (isa (S, "garray") && isa (Sk, "garray") && isa (Ik, "garray"));
%!     assert (isequaln (gather (S), gsearch (Q, D, args{1}{:})));
%!     assert (isequaln (gather (Sk), Sh) && isequal (gather (Ik), Ih));
%!   endfor
%! endfor

%!testif ; gpudot_gpu_available ()
%! ## the GPU: garrays, each tile shape (m <= 8, <= 32, more), k on the device (<= 256)
%! ## and past it, host data with "device", "gpu"; the same indices as the CPU engine
%! ## where the scores agree
%! rand ("seed", 6); randn ("seed", 6);
%! for cls = {"single", "double"}
%!   D = cast (randn (37, 2500), cls{1});
%!   D(:, 11) = 0;
%!   D(:, 13) = D(:, 12);
%!   D(3, 20) = Inf;
%!   D(4, 21) = NaN;
%!   G = garray (D);
%!   for m = [1 5 40 100]
%!     Q = cast (randn (37, m), cls{1});
%!     Q(:, 1) = D(:, 12);
%!     for args = {{}, {"metric", "dot"}, {"accum", "native"}, {"accum", "compensated"}, ...
%!                 {"accum", "compensated", "metric", "dot"}}
%!       for k = [0 1 10 256 300]
%!         check_search (Q, G, k, args{1});
%!       endfor
%!     endfor
%!     check_search (Q, D, 10, {"device", "gpu"});
%!     [S1, I1] = gsearch (Q, G, 10);
%!     [S2, I2] = gsearch (Q, D, 10);
%!     assert (double (S1), double (S2), 8 * eps (cls{1}));
%!     assert (I1(1, :), I2(1, :));
%!     ## the common calls' one gateway call and gsearch.m's own path ("device" takes it
%!     ## there): the same bits
%!     for args = {{}, {"accum", "double"}, {"Metric", "DOT"}, {"accum", "native"}, ...
%!                 {"accum", "Compensated", "metric", "cosine"}}
%!       [S3, I3] = gsearch (Q, G, 10, args{1}{:});
%!       [S4, I4] = gsearch (Q, G, 10, args{1}{:}, "device", "gpu");
%!       assert (isequal (S3, S4) && isequal (I3, I4));
%!     endfor
%!   endfor
%! endfor

%!testif ; gpudot_gpu_available ()
%! ## "output", "garray": every score straight into a garray on the GPU, the same bits as
%! ## to the host, in every mode; the best k as garrays, and maxk of the scores on the
%! ## device giving the same; D in parts; no queries
%! rand ("seed", 9); randn ("seed", 9);
%! for cls = {"single", "double"}
%!   D = cast (randn (20, 3000), cls{1});
%!   Q = cast (randn (20, 12), cls{1});
%!   G = garray (D);
%!   for args = {{}, {"metric", "dot"}, {"accum", "native"}, {"accum", "compensated"}}
%!     S = gsearch (Q, G, "output", "garray", args{1}{:});
%!     assert (isa (S, "garray"));
%!     assert (size (S), [3000 12]);
%!     assert (isequal (gather (S), gsearch (Q, G, args{1}{:})));
%!     [Sk, Ik] = gsearch (Q, G, 7, "output", "garray", args{1}{:});
%!     [Sh, Ih] = gsearch (Q, G, 7, args{1}{:});
%!     assert (isa (Sk, "garray") && isa (Ik, "garray"));
%!     assert (isequal (gather (Sk), Sh) && isequal (gather (Ik), Ih));
%!     [Bm, Im] = maxk (S, 7);
%!     assert (isequal (gather (Bm), Sh) && isequal (gather (Im), Ih));
%!   endfor
%!   G2 = garray (D, "devices", [0 0]);
%!   assert (isequal (gather (gsearch (Q, G2, "output", "garray")), gsearch (Q, G)));
%!   S0 = gsearch (Q(:, []), G, "output", "garray");
%!   assert (isa (S0, "garray") && isequal (size (S0), [3000 0]));
%! endfor

%!testif ; gpudot_gpu_available ()
%! ## single data's 128 x 128 tiles: rows of 16-byte copies (d a multiple of 4) and of 4-byte
%! ## ones, partial tiles of K, of queries (m past 128 too) and of columns, every mode
%! rand ("seed", 8); randn ("seed", 8);
%! for d = [3 36 64 130]
%!   D = single (randn (d, 1000));
%!   D(:, 5) = 0;
%!   G = garray (D);
%!   for m = [9 100 130]
%!     Q = single (randn (d, m));
%!     Q(:, 2) = D(:, 7);
%!     for args = {{}, {"metric", "dot"}, {"accum", "native"}, {"accum", "native", "metric", "dot"}}
%!       check_search (Q, G, 10, args{1});
%!     endfor
%!     ## native on the CUDA cores (where Hopper's tensor cores take it otherwise)
%!     setenv ("GPUDOT_SEARCH_CORES", "1");
%!     unwind_protect
%!       check_search (Q, G, 10, {"accum", "native"});
%!       check_search (Q, G, 10, {"accum", "native", "metric", "dot"});
%!     unwind_protect_cleanup
%!       unsetenv ("GPUDOT_SEARCH_CORES");
%!     end_unwind_protect
%!   endfor
%! endfor
%! ## the queries widened a slab of 128 at a time (past the slab: widened again each chunk of
%! ## columns, n past one chunk here): the same bits as all at once
%! D = single (randn (40, 120000));
%! G = garray (D);
%! Q = single (randn (40, 300));
%! [S1, I1] = gsearch (Q, G, 5);
%! [T1, J1] = gsearch (Q, G, 5, "metric", "dot", "accum", "native");
%! setenv ("GPUDOT_SEARCH_SLAB", "128");
%! unwind_protect
%!   [S2, I2] = gsearch (Q, G, 5);
%!   [T2, J2] = gsearch (Q, G, 5, "metric", "dot", "accum", "native");
%!   check_search (Q(:, 1:200), garray (D(:, 1:3000)), 5, {});
%! unwind_protect_cleanup
%!   unsetenv ("GPUDOT_SEARCH_SLAB");
%! end_unwind_protect
%! assert (isequal (S1, S2) && isequal (I1, I2) && isequal (T1, T2) && isequal (J1, J2));
%! ## queries of more than 65536 elements (not widened: the other tiles take them)
%! D = single (randn (70000, 300));
%! Q = single (randn (70000, 9));
%! Q(:, 2) = D(:, 7);
%! check_search (Q, garray (D), 4, {});
%! check_search (Q, garray (D), 4, {"accum", "native", "metric", "dot"});
%! ## vectors of no elements, past the few-query kernel's 8: cosines NaN, dot products 0
%! for m = [9 12 130]
%!   G = garray (single (zeros (0, 300)));
%!   Q = single (zeros (0, m));
%!   for args = {{}, {"accum", "native"}, {"device", "gpu"}}
%!     assert (isequaln (gsearch (Q, G, args{1}{:}), single (NaN (300, m))));
%!     assert (isequal (gsearch (Q, G, "metric", "dot", args{1}{:}), single (zeros (300, m))));
%!     [S, I] = gsearch (Q, G, 3, args{1}{:});
%!     assert (isequaln (S, single (NaN (3, m))) && isequal (I, repmat ((1:3)', 1, m)));
%!   endfor
%! endfor

%!testif ; gpudot_gpu_available ()
%! ## each query's best k chosen in the wide tile as its blocks go (single data, more than 8
%! ## queries, k <= 16; GPUDOT_SEARCH_FUSE takes it below its 64 queries): ties across
%! ## blocks and past a tile's buffer (a column repeated 400 times), NaN scores after the
%! ## numbers and k past them (zero columns), parts smaller than k; the same bits as the
%! ## selection from chunks of scores (100 queries: fused by default)
%! randn ("seed", 10);
%! for d = [24 25]
%!   B = single (randn (d, 50));
%!   D = garray (repmat (B, 1, 400));
%!   Q = single (randn (d, 20));
%!   Q(:, 3) = B(:, 7);
%!   Z = zeros (d, 3000, "single");
%!   Z(:, [5 2000 2999]) = single (randn (d, 3));
%!   Zs = zeros (d, 20, "single");
%!   Zs(:, 3) = single (randn (d, 1));
%!   for args = {{}, {"metric", "dot"}, {"accum", "native"}}
%!     for k = [1 10 16]
%!       setenv ("GPUDOT_SEARCH_FUSE", "1");
%!       unwind_protect
%!         check_search (Q, D, k, args{1});
%!         check_search (Q, garray (Z), k, args{1});
%!         check_search (Q, garray (Zs, "devices", [0 0 0]), k, args{1});
%!         [S1, I1] = gsearch (Q, D, k, args{1}{:});
%!         setenv ("GPUDOT_SEARCH_FUSE", "0");
%!         [S2, I2] = gsearch (Q, D, k, args{1}{:});
%!       unwind_protect_cleanup
%!         unsetenv ("GPUDOT_SEARCH_FUSE");
%!       end_unwind_protect
%!       assert (isequal (S1, S2) && isequal (I1, I2));
%!     endfor
%!   endfor
%!   Q = single (randn (d, 100));
%!   check_search (Q, D, 10, {});
%!   [S1, I1] = gsearch (Q, D, 10);
%!   setenv ("GPUDOT_SEARCH_FUSE", "0");
%!   unwind_protect
%!     [S2, I2] = gsearch (Q, D, 10);
%!   unwind_protect_cleanup
%!     unsetenv ("GPUDOT_SEARCH_FUSE");
%!   end_unwind_protect
%!   assert (isequal (S1, S2) && isequal (I1, I2));
%! endfor

%!testif ; gpudot_gpu_available ()
%! ## parts: a garray on several GPUs (several parts of one GPU on a one-GPU machine)
%! ## gives the same bits as on one; the chunks of scores (n past one chunk)
%! rand ("seed", 7); randn ("seed", 7);
%! s = gpudot_info ();
%! D = single (randn (16, 5000));
%! Q = single (randn (16, 9));
%! [S1, I1] = gsearch (Q, garray (D), 25);
%! for devs = {[0 0], [0 0 0], 0:s.device_count - 1, [s.device_count - 1, 0]}
%!   G = garray (D, "devices", devs{1});
%!   [S2, I2] = gsearch (Q, G, 25);
%!   assert (isequal (S1, S2) && isequal (I1, I2));
%!   assert (isequal (gsearch (Q, G), gsearch (Q, garray (D))));
%! endfor
%! D = single (randn (4, 3e6));
%! Q = single (randn (4, 30));
%! check_search (Q, garray (D), 5, {});

%!testif ; gpudot_gpu_available ()
%! ## huge and tiny doubles: the accumulator cannot hold their squares, so the cosines are
%! ## computed scaled (as gcosine's), on the GPU as on the CPU engine
%! D = [1e200 * randn(8, 50), 1e-300 * randn(8, 50)];
%! Q = [D(:, 3), D(:, 77)];
%! for dev = {"gpu", "cpu"}
%!   [S, I] = gsearch (Q, D, 3, "device", dev{1});
%!   assert (I(1, :), [3 77]);
%!   assert (S(1, :), [1 1], 4 * eps);
%!   want = [gcosine(Q(:, 1), D)', gcosine(Q(:, 2), D)'];
%!   assert (gsearch (Q, D, "device", dev{1}), want, 8 * eps);
%! endfor

%!test
%! ## huge and tiny doubles on the CPU engine
%! D = [1e200 * [1 0; 0 1], 1e-300 * [1 1; 1 -1]];
%! [S, I] = gsearch ([1; 1], D, 4);
%! assert (I', [3 1 2 4]);
%! assert (S', [1, 1 / sqrt(2), 1 / sqrt(2), 0], 4 * eps);

%!testif ; ! isempty (pkg ("list", "statistics"))
%! ## the help's equivalences with the statistics package (where it is installed):
%! ## pdist2 (X, Y, "cosine") is 1 - gsearch (Y', X'), its best k (smallest distances,
%! ## columns) gsearch's, and so are knnsearch's, on both engines
%! pkg load statistics
%! unwind_protect
%!   randn ("state", 7);
%!   X = randn (300, 9);  Y = randn (5, 9);
%!   P = pdist2 (X, Y, "cosine");
%!   [~, ord] = sort (P, 1);
%!   for DD = {X', garray(X')}
%!     assert (1 - gsearch (Y', DD{1}), P, 1e-12);
%!     [S, I] = gsearch (Y', DD{1}, 4);
%!     assert (I, ord(1:4, :));
%!     assert (1 - S, P(sub2ind (size (P), I, repmat (1:5, 4, 1))), 1e-12);
%!     if (exist ("knnsearch"))   # (statistics 2 and later)
%!       [Idx, Dist] = knnsearch (X, Y, "K", 4, "Distance", "cosine");
%!       assert (Idx, I');
%!       assert (Dist, 1 - S', 1e-12);
%!     endif
%!   endfor
%! unwind_protect_cleanup
%!   pkg unload statistics
%! end_unwind_protect

%!error id=gpudot:badOption gsearch (ones (2, 1), ones (2, 3), -1)
%!error id=gpudot:badOption gsearch (ones (2, 1), ones (2, 3), 1.5)
%!error id=gpudot:badOption gsearch (ones (2, 1), ones (2, 3), 1, "metric", "l2")
%!error id=gpudot:badOption gsearch (ones (2, 1), ones (2, 3), 1, "bogus", "x")
%!error id=gpudot:badOption gsearch (ones (2, 1), ones (2, 3), 1, "accum")
%!error id=gpudot:badOption gsearch (ones (2, 1), ones (2, 3), 1, "output", "device")
%!error id=gpudot:sizeMismatch gsearch (ones (3, 1), ones (2, 3), 1)
%!error id=gpudot:badType gsearch (ones (2, 1) * 1i, ones (2, 3), 1)
%!error id=gpudot:badType gsearch (ones (2, 1), {1}, 1)
%!error id=gpudot:badType gsearch (ones (2, 1), ones (2, 3, 2), 1)
%!error <Invalid call> gsearch (1)
