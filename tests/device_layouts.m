## -*- texinfo -*-
## @deftypefn {} {@var{layouts} =} device_layouts (@var{ndev})
## Test helper of test_shards and test_spread: lists of devices to lay data out on: several
## pieces on GPU 0, and where there are more GPUs every one of them in two orders.
## @end deftypefn

function layouts = device_layouts (ndev)
  layouts = {0, [0 0], [0 0 0 0 0]};
  if (ndev > 1)
    layouts(end+1:end+3) = {0:ndev-1, ndev-1:-1:0, [0:ndev-1 0:ndev-1]};
  endif
endfunction
