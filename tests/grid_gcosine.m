## -*- texinfo -*-
## @deftypefn {} {@var{cases} =} grid_gcosine ()
## The generated conformance grid for gcosine: sizes, orientations, shapes and dims,
## broadcasting (a query against every column), classes, complexity, accumulate modes
## and engines, and scaling cases.  See grid_gdot for the case format.
## @end deftypefn

function cases = grid_gcosine ()

  cases = {};
  devices = {"cpu", "gpu"};
  accums = {"native", "double", "compensated"};
  classes = {"double", "double"; "single", "single"; "single", "double"};
  cplx = [0 0; 1 0; 0 1; 1 1];

  for n = [1 31 32 33 1023 1024 1025 7919 2^20+3]
    for c = 1:rows (classes)
      for z = 1:rows (cplx)
        if (n > 1e5 && (c > 2 || z == 2 || z == 3))
          continue;
        endif
        for a = 1:numel (accums)
          for d = 1:numel (devices)
            name = sprintf ("vec n=%d %s/%s cplx=%d%d %s", n, classes{c, :}, cplx(z, :),
                            accums{a});
            seed = numel (cases) + 1;
            cases{end+1} = make_case (name, devices{d},
                                   @() check_cosine (make_data ([n 1], classes{c, 1}, cplx(z, 1), seed),
                                                           make_data ([1 n], classes{c, 2}, cplx(z, 2), seed + 1e6),
                                                           {}, accums{a}, devices{d}));
          endfor
        endfor
      endfor
    endfor
  endfor

  pairs = {[1025 3], [1025 3], 0; [3 1025], [3 1025], 2; [5 4 3], [5 4 3], 3;
           [768 1], [768 500], 0; [1 768], [500 768], 2; [4097 1], [4097 9], 1;
           [5 4 3], [5 4 3], 4; [33 0], [33 0], 1};
  for q = 1:rows (pairs)
    for c = 1:2
      for z = [1 4]
        for a = 1:numel (accums)
          for d = 1:numel (devices)
            name = sprintf ("array %s vs %s dim=%d %s cplx=%d%d %s", mat2str (pairs{q, 1}),
                            mat2str (pairs{q, 2}), pairs{q, 3}, classes{c, 1}, cplx(z, :),
                            accums{a});
            seed = numel (cases) + 1;
            dimargs = ifelse (pairs{q, 3} == 0, {{}}, {{pairs{q, 3}}}){1};
            cases{end+1} = make_case (name, devices{d},
                                   @() check_cosine (make_data (pairs{q, 1}, classes{c, 1}, cplx(z, 1), seed),
                                                           make_data (pairs{q, 2}, classes{c, 1}, cplx(z, 2), seed + 1e6),
                                                           dimargs, accums{a}, devices{d}));
          endfor
        endfor
      endfor
    endfor
  endfor

  scaled = {[1e200 0], [1e200 0]; 1e-300 * [1 1], 1e-300 * [1 -1]; [1e200 1e-200], [1e-300 1];
            single([1e30 1e30]), single([1e30 -1e30]); single([1e-40 0]), single([1e-40 1e-45]);
            [1e-310 1e-310], [1e300 1e300]; [0 0], [1 1]; [NaN 1], [1 1]; [Inf 1], [1 1];
            [1 2 3], [2 4 6]; [1 2 3], -[2 4 6]};
  for q = 1:rows (scaled)
    for a = 1:numel (accums)
      for d = 1:numel (devices)
        for z = [1 4]
          x = scaled{q, 1};  y = scaled{q, 2};
          if (z == 4)
            x = complex (x, x);  y = complex (y, -y);
          endif
          name = sprintf ("scale %s vs %s cplx=%d %s", mat2str (double (scaled{q, 1}), 3),
                          mat2str (double (scaled{q, 2}), 3), z == 4, accums{a});
          cases{end+1} = make_case (name, devices{d},
                                 @() check_cosine (x, y, {}, accums{a}, devices{d}));
        endfor
      endfor
    endfor
  endfor

endfunction
