## print_stages (st, thr, digits): the stage sums of st (a row of __gpudot__ ("__stages__")
## of a build with STAGES=1) at or above thr, in stage order, named as the GPUDOT_STAGE_*
## enum of include/gpudot.h, with `digits` decimals; ends the line.  For bench/stages.m and
## bench/ring_octave_probe.m.
function print_stages (st, thr, digits)
  names = {"calls", "parse", "resolve", "prepare", "engine_entry", "ring_alloc|resident_prep", ...
           "drain|after_launch", "sync|spin", "engine_exit", "launch_prep", "launch", ...
           "launch_check", "ring_calls", "ring_waits", "region_end", "exit"};
  for i = 2:numel (names)
    if (st(i) >= thr)
      printf (" %s %.*f", names{i}, digits, st(i));
    endif
  endfor
  printf ("\n");
endfunction
