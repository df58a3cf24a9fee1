## -*- texinfo -*-
## @deftypefn {} {@var{cases} =} grid_gdot ()
## The generated conformance grid for gdot: sizes at every edge the kernels have,
## orientations, shapes and every dim, classes, complexity, accumulate modes and engines.
## Each case is a struct with fields name, gpu (needs a GPU) and fn (throws on failure).
## @end deftypefn

function cases = grid_gdot ()

  cases = {};
  devices = {"cpu", "gpu"};
  accums = {"native", "double", "compensated"};
  classes = {"double", "double"; "single", "single"; "single", "double"; "double", "single"};
  cplx = [0 0; 1 0; 0 1; 1 1];

  ## vectors
  sizes = [0 1 31 32 33 1023 1024 1025 7919 2^20+3];
  orients = {"col", "col"; "row", "col"; "row", "row"};
  for n = sizes
    for o = 1:rows (orients)
      if (n > 1e5 && o > 1)
        continue;                         # one orientation for the large size
      endif
      for c = 1:rows (classes)
        if (n > 1e5 && c > 2)
          continue;
        endif
        for z = 1:rows (cplx)
          for a = 1:numel (accums)
            for d = 1:numel (devices)
              for exact = [false true]
                name = sprintf ("vec n=%d %s/%s %s/%s cplx=%d%d %s%s", n, orients{o, :},
                                classes{c, :}, cplx(z, :), accums{a},
                                ifelse (exact, " exact", ""));
                seed = numel (cases) + 1;
                cases{end+1} = make_case (name, devices{d},
                                          @() vec_case (n, orients(o, :), classes(c, :),
                                                        cplx(z, :), accums{a},
                                                        devices{d}, exact, seed));
              endfor
            endfor
          endfor
        endfor
      endfor
    endfor
  endfor

  ## matrices and N-D arrays, every dim and dim > ndims
  shapes = {[1025 3], [3 1025], [5 4 3], [3 1 4 2], [33 0], [4097 2], [2 5000]};
  for s = 1:numel (shapes)
    sz = shapes{s};
    for dim = [0, 1:numel(sz)+1]
      for c = 1:2
        for z = [1 2 4]
          for a = 1:numel (accums)
            for d = 1:numel (devices)
              name = sprintf ("array %s dim=%d %s cplx=%d%d %s", mat2str (sz), dim,
                              classes{c, 1}, cplx(z, :), accums{a});
              seed = numel (cases) + 1;
              cases{end+1} = make_case (name, devices{d},
                                        @() array_case (sz, sz, dim, classes{c, 1}, cplx(z, :),
                                                        accums{a}, devices{d}, seed));
            endfor
          endfor
        endfor
      endfor
    endfor
  endfor

  ## broadcasting: sizes that differ but are compatible
  pairs = {[1000 1], [1000 7], 1; [1 1000], [7 1000], 2; [1 5000], [1 5000], 3;
           [4 1 3], [4 5 3], 1; [4 5 1], [4 5 3], 2; [1 5 3], [4 5 3], 2;
           [4 1 3 1], [4 5 1 2], 1; [1 1], [3 4], 1; [6 1], [1 7], 1; [6 1], [1 7], 2};
  for p = 1:rows (pairs)
    for a = 1:numel (accums)
      for d = 1:numel (devices)
        for z = [1 4]
          name = sprintf ("broadcast %s vs %s dim=%d cplx=%d%d %s", mat2str (pairs{p, 1}),
                          mat2str (pairs{p, 2}), pairs{p, 3}, cplx(z, :), accums{a});
          seed = numel (cases) + 1;
          cases{end+1} = make_case (name, devices{d},
                                    @() array_case (pairs{p, 1}, pairs{p, 2}, pairs{p, 3},
                                                    "double", cplx(z, :), accums{a},
                                                    devices{d}, seed));
        endfor
      endfor
    endfor
  endfor

endfunction

function vec_case (n, orient, cls, cplx, accum, device, exact, seed)
  szs = {[n 1], [n 1]};
  for i = 1:2
    if (strcmp (orient{i}, "row"))
      szs{i} = [1 n];
    endif
  endfor
  x = make_data (szs{1}, cls{1}, cplx(1), seed, exact);
  y = make_data (szs{2}, cls{2}, cplx(2), seed + 1e6, exact);
  check_dot (x, y, {}, accum, device, exact);
endfunction

function array_case (szx, szy, dim, cls, cplx, accum, device, seed)
  x = make_data (szx, cls, cplx(1), seed);
  y = make_data (szy, cls, cplx(2), seed + 1e6);
  if (dim == 0)
    check_dot (x, y, {}, accum, device, false);
  else
    check_dot (x, y, {dim}, accum, device, false);
  endif
endfunction
