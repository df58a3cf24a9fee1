## t = loop_us (code, nsets, per, rounds)
## Per-call time (us) of a plain loop of PER calls of CODE, evaluated in the caller's
## workspace with k_ cycling over 1..NSETS (so CODE can rotate input sets: X{k_}):
## the median over ROUNDS (default 7) of each round's mean.  A plain loop, no anonymous
## function in between: on the GPU machine that alone costs ~10 us a call.  Used by
## bench/garray_calls.m and bench/small_calls_ab.m.
function t = loop_us (code, nsets, per, rounds = 7)
  t = zeros (rounds, 1);
  for r = 1:rounds
    evalin ("caller", sprintf ("t0_ = tic (); for r_ = 1:%d, k_ = mod (r_ - 1, %d) + 1; %s; end; t_ = toc (t0_);",
                               per, nsets, code));
    t(r) = evalin ("caller", "t_") / per;
  endfor
  t = 1e6 * median (t);
endfunction
