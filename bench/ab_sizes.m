## lgs = ab_sizes (name, default): the log2 sizes an A/B script runs, from the environment
## variable NAME (e.g. AB_SIZES="15 16") where it is set, else DEFAULT.
function lgs = ab_sizes (name, default)
  lgs = str2num (getenv (name));
  if (isempty (lgs))
    lgs = default;
  endif
endfunction
