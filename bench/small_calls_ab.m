## A/B of small resident calls (bench/results/h100-small-calls-ab-2026-11-23.txt): per-call us,
## median of 7 rounds of rotating inputs; GPUDOT_MEXDIR names the build; run once per build.
## SMALL_SIZES (log2 n, default "14 16 18") and SMALL_PER (calls a round, default 3000)
## narrow it.
mexdir = getenv ("GPUDOT_MEXDIR");
addpath (make_absolute_filename ("m"));
addpath (make_absolute_filename (mexdir));
warning ("off", "gpudot:noDevice");
addpath (fileparts (mfilename ("fullpath")));   # loop_us.m, ab_sizes.m
nsets = 8;
per = 3000;
if (! isempty (getenv ("SMALL_PER")))
  per = str2double (getenv ("SMALL_PER"));
endif
lgs = ab_sizes ("SMALL_SIZES", [14 16 18]);
out = {};
out{end+1} = sprintf ("ping %.2f", loop_us ("__gpudot__ ('__ping__')", nsets, per));
for cls = {"single", "double"}
  for lg = lgs
    n = 2^lg;
    G = cell (nsets, 1); H = G;
    for k = 1:nsets
      G{k} = garray (cast (randn (n, 1), cls{1})); H{k} = garray (cast (randn (n, 1), cls{1}));
    endfor
    a = loop_us ("r = gdot (G{k_}, H{k_})", nsets, per);
    b = loop_us ("r = gnorm (G{k_})", nsets, per);
    c = loop_us ("r = gcosine (G{k_}, H{k_})", nsets, per);
    out{end+1} = sprintf ("%s 2^%d gdot %.2f gnorm %.2f gcosine %.2f", cls{1}, lg, a, b, c);
    clear G H
  endfor
endfor
printf ("%s\n", strjoin (out, " | "));
