## The exact core (cpu/gpudot_exact.c) against sums computed in rational arithmetic
## (tests/exact_ref.py wrote tests/exact_cases.txt): GenDot up to condition 1e300,
## cancellation across the exponent range, ties at the last bit, singles that rounding
## to double first would get wrong, subnormal and overflowing results; each case in its
## order, reversed, permuted and in chunks merged, bit for bit.  Then IEEE's cases.

%!function v = from_hex (h, cls)
%!  if (cls == "s")
%!    v = typecast (uint32 (hex2dec (h)), "single");
%!  else
%!    v = typecast (uint64 (hex2dec (h(1:8))) * 2^32 + uint64 (hex2dec (h(9:16))), "double");
%!  endif
%!endfunction

%!test
%! f = fopen (fullfile (fileparts (which ("test_exact")), "exact_cases.txt"));
%! lines = {};
%! while (ischar (l = fgetl (f)))
%!   lines{end+1} = l;
%! endwhile
%! fclose (f);
%! assert (numel (lines) > 100);
%! rand ("seed", 11);
%! for c = 1:numel (lines)
%!   w = strsplit (lines{c});
%!   cls = w{1};
%!   n = str2double (w{2});
%!   v = cellfun (@(h) from_hex (h, cls), w(3:end));
%!   x = v(1:n);  y = v(n+1:2*n);  want = v(end);
%!   p = randperm (n);
%!   got = [__gpudot__("exact_dot", x, y), __gpudot__("exact_dot", x(end:-1:1), y(end:-1:1)), ...
%!          __gpudot__("exact_dot", x(p), y(p)), __gpudot__("exact_dot", x(p), y(p), 3), ...
%!          __gpudot__("exact_dot", x, y, 1)];
%!   ok = isequal (typecast (got, ifelse (cls == "s", "uint32", "uint64")), ...
%!                 repmat (typecast (want, ifelse (cls == "s", "uint32", "uint64")), 1, 5));
%!   assert (ok, "case %d (%s, n = %d): %.17g, want %.17g", c, cls, n, got(1), want);
%! endfor

%!test
%! e = @(varargin) __gpudot__ ("exact_dot", varargin{:});
%! assert (e ([1e200 1e200 3], [1e200 -1e200 0.5]), 1.5);
%! assert (e ([1 2^-53], [1 1]), 1);                      # a tie: to even
%! assert (e ([1 2^-53 2^-1000], [1 1 1]), 1 + eps);      # decided far below it
%! assert (e ([realmax realmax -realmax], [1 1 1]), realmax);
%! assert (e ([realmax realmax], [1 1]), Inf);
%! assert (e (2^-1074, 0.5), 0);                          # half the least subnormal: to 0
%! assert (e (2^-1074, 0.75), 2^-1074);
%! assert (isnan (e ([Inf 1], [0 1])) && isnan (e ([Inf -Inf], [1 1])) && isnan (e (NaN, 1)));
%! assert (e ([Inf 1e308], [1 1e308]), Inf);
%! assert (e ([-Inf 1], [1 1]), -Inf);
%! assert (signbit (e ([-0 0], [1 -1])) && ! signbit (e ([1 -1], [1 1])));
%! assert (! signbit (e ([], [])) && e ([], []) == 0);
%! assert (e (single ([1 2^-24 2^-60]), single ([1 1 1])), single (1 + 2^-23));
%! assert (e (single (1e30), single (1e30)), single (Inf));
%!error <two real arrays> __gpudot__ ("exact_dot", [1 2], single ([1 2]))
%!error <two real arrays> __gpudot__ ("exact_dot", [1 2], [1 2 3])
