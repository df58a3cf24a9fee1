## -*- texinfo -*-
## @deftypefn {} {@var{cases} =} grid_gnorm ()
## The generated conformance grid for gnorm: sizes at the kernels' edges, shapes and
## every dim, classes, complexity, every kind of p, accumulate modes and engines, plus
## overflow and underflow cases for every p.  See grid_gdot for the case format.
## @end deftypefn

function cases = grid_gnorm ()

  cases = {};
  devices = {"cpu", "gpu"};
  accums = {"native", "double", "compensated"};
  ps = {2, 1, Inf, -Inf, 0, 3, 0.5, -1.5, "fro"};

  for n = [0 1 31 32 33 1023 1024 1025 7919 2^20+3]
    for cls = {"double", "single"}
      for cplx = [false true]
        for ip = 1:numel (ps)
          if (n > 1e5 && ip > 3)
            continue;
          endif
          for a = 1:numel (accums)
            for d = 1:numel (devices)
              name = sprintf ("vec n=%d %s cplx=%d p=%s %s", n, cls{1}, cplx,
                              num2str (ps{ip}), accums{a});
              seed = numel (cases) + 1;
              cases{end+1} = make_case (name, devices{d},
                                     @() check_norm (make_data ([1 n], cls{1}, cplx, seed),
                                                           ps{ip}, {}, accums{a}, devices{d}));
            endfor
          endfor
        endfor
      endfor
    endfor
  endfor

  shapes = {[1025 3], [3 1025], [5 4 3], [33 0], [2 5000], [4097 2]};
  for s = 1:numel (shapes)
    sz = shapes{s};
    for dim = [0, 1:numel(sz)+1]
      for cls = {"double", "single"}
        for cplx = [false true]
          for ip = [1 2 3 6]
            for a = 1:numel (accums)
              for d = 1:numel (devices)
                name = sprintf ("array %s dim=%d %s cplx=%d p=%s %s", mat2str (sz), dim,
                                cls{1}, cplx, num2str (ps{ip}), accums{a});
                seed = numel (cases) + 1;
                dimargs = ifelse (dim == 0, {{}}, {{dim}}){1};
                cases{end+1} = make_case (name, devices{d},
                                       @() check_norm (make_data (sz, cls{1}, cplx, seed),
                                                             ps{ip}, dimargs, accums{a},
                                                             devices{d}));
              endfor
            endfor
          endfor
        endfor
      endfor
    endfor
  endfor

  ## overflow / underflow: true norms representable, elements or their powers not
  big = {[1e200 1e200], [1e300 -1e300 1e300], single([1e30 1e30]), single([3e38 3e38]), ...
         [1e-310 1e-310], [1e-320 -1e-320 1e-320], single([1e-40 1e-40]), [1e-200 1e-200], ...
         [1e200 1e-200 1], [1e200; 1], reshape([1e200 1e200 1 1 1e-310 1e-310], 2, 3)};
  for b = 1:numel (big)
    for ip = 1:numel (ps)
      for a = 1:numel (accums)
        for d = 1:numel (devices)
          for cplx = [false true]
            name = sprintf ("scale %s p=%s cplx=%d %s", mat2str (double (big{b}), 3),
                            num2str (ps{ip}), cplx, accums{a});
            x = big{b};
            if (cplx)
              x = complex (x, x / 2);
            endif
            ## huge and tiny columns side by side: a 2-D array reduces along dim 1
            cases{end+1} = make_case (name, devices{d},
                                   @() check_norm (x, ps{ip}, {}, accums{a}, devices{d}));
          endfor
        endfor
      endfor
    endfor
  endfor
  ## huge and normal columns in one call, every p
  for ip = 1:numel (ps)
    for d = 1:numel (devices)
      cases{end+1} = make_case (sprintf ("mixed columns p=%s", num2str (ps{ip})), devices{d},
                                @() check_norm ([1e200 1 1e-310; 1e200 2 1e-310; 3e200 3 0],
                                                   ps{ip}, {}, "double", devices{d}));
    endfor
  endfor

endfunction
