## Copyright (C) 2026 gpudot developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{ok} =} __gpudot_plot__ (@var{png}, @var{ttl}, @var{xl}, @var{yl}, @var{series}, @var{logx}, @var{logy})
## Writes a line plot to the PNG file @var{png} without a display: the data go to a text
## file, then gnuplot (pngcairo, else png) draws it, or, where gnuplot is missing, Python's
## matplotlib.  (Octave's own printing needs a graphics toolkit; octave-cli's gnuplot
## toolkit failed headless with "ft_text_renderer: invalid bounding box".)
## @var{series}: struct array with fields name, x, y.  Returns false, with a warning,
## where neither plotter exists.  Internal.
## @end deftypefn

function ok = __gpudot_plot__ (png, ttl, xl, yl, series, logx, logy)

  ok = false;
  dat = [tempname() ".dat"];
  fid = fopen (dat, "w");
  for s = 1:numel (series)
    x = double (series(s).x(:));  y = double (series(s).y(:));
    keep = isfinite (x) & isfinite (y) & (! logy | y > 0);
    fprintf (fid, "%.9g %.9g\n", [x(keep) y(keep)]');
    fprintf (fid, "\n\n");
  endfor
  fclose (fid);
  unwind_protect
    [st, ~] = system ("command -v gnuplot >/dev/null 2>&1");
    if (st == 0)
      ok = plot_gnuplot (png, ttl, xl, yl, series, logx, logy, dat);
    endif
    if (! ok)
      [st, ~] = system ("python3 -c 'import matplotlib' >/dev/null 2>&1");
      if (st == 0)
        ok = plot_python (png, ttl, xl, yl, series, logx, logy, dat);
      endif
    endif
  unwind_protect_cleanup
    unlink (dat);
  end_unwind_protect
  if (! ok)
    warning ("gpudot:noPlot", "gpudot_demo: no gnuplot or python3 matplotlib: %s not written", png);
  endif

endfunction

function s = quote (s)
  s = strrep (s, "'", "");
endfunction

function ok = plot_gnuplot (png, ttl, xl, yl, series, logx, logy, dat)
  gp = [tempname() ".gp"];
  fid = fopen (gp, "w");
  [~, terms] = system ("gnuplot -e 'set terminal' 2>&1");
  if (any (strfind (terms, "pngcairo")))
    fprintf (fid, "set terminal pngcairo size 960,600 font 'Sans,11'\n");
  else
    fprintf (fid, "set terminal png size 960,600\n");
  endif
  fprintf (fid, "set output '%s'\n", quote (png));
  fprintf (fid, "set title '%s'\nset xlabel '%s'\nset ylabel '%s'\n", quote (ttl), quote (xl), quote (yl));
  fprintf (fid, "set key outside right top\nset grid\n");
  if (logx)
    fprintf (fid, "set logscale x 2\nset format x '2^{%%L}'\n");
  endif
  if (logy)
    fprintf (fid, "set logscale y\nset format y '10^{%%L}'\n");
  endif
  fprintf (fid, "plot ");
  for s = 1:numel (series)
    fprintf (fid, "'%s' index %d using 1:2 with linespoints lw 2 pt 7 ps 0.8 title '%s'%s", dat,
             s - 1, quote (series(s).name), ifelse (s < numel (series), ", \\\n     ", "\n"));
  endfor
  fclose (fid);
  [st, out] = system (sprintf ("gnuplot '%s' 2>&1", gp));
  unlink (gp);
  ok = st == 0 && exist (png, "file");
  if (st != 0)
    warning ("gpudot:noPlot", "gpudot_demo: gnuplot failed: %s", out);
  endif
endfunction

function ok = plot_python (png, ttl, xl, yl, series, logx, logy, dat)
  py = [tempname() ".py"];
  fid = fopen (py, "w");
  fprintf (fid, "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n");
  fprintf (fid, "blocks = open('%s').read().strip('\\n').split('\\n\\n\\n')\n", dat);
  fprintf (fid, "names = [%s]\n", strjoin (cellfun (@(n) ["'" quote(n) "'"], {series.name}, "UniformOutput", false), ", "));
  fprintf (fid, "fig, ax = plt.subplots(figsize=(9.6, 6))\n");
  fprintf (fid, "for b, name in zip(blocks + [''] * len(names), names):\n");
  fprintf (fid, "    pts = [tuple(map(float, l.split())) for l in b.split('\\n') if l.strip()]\n");
  fprintf (fid, "    if pts: ax.plot([p[0] for p in pts], [p[1] for p in pts], 'o-', ms=4, lw=2, label=name)\n");
  if (logx)
    fprintf (fid, "ax.set_xscale('log', base=2)\n");
  endif
  if (logy)
    fprintf (fid, "ax.set_yscale('log')\n");
  endif
  fprintf (fid, "ax.set_title('%s'); ax.set_xlabel('%s'); ax.set_ylabel('%s'); ax.grid(True, alpha=0.3)\n",
           quote (ttl), quote (xl), quote (yl));
  fprintf (fid, "ax.legend(loc='upper left', bbox_to_anchor=(1.01, 1), fontsize=9)\nfig.tight_layout()\n");
  fprintf (fid, "fig.savefig('%s', dpi=100)\n", quote (png));
  fclose (fid);
  [st, out] = system (sprintf ("python3 '%s' 2>&1", py));
  unlink (py);
  ok = st == 0 && exist (png, "file");
  if (st != 0)
    warning ("gpudot:noPlot", "gpudot_demo: matplotlib failed: %s", out);
  endif
endfunction
