## -*- texinfo -*-
## @deftypefn {} {@var{a} =} abs_parts (@var{v})
## Test helper of check_dot and fuzz_diff: |re| + |im| of each element, NaN parts as 0: the
## magnitudes behind either part of a sum or product, where a NaN elsewhere in an element
## makes only its own part NaN.
## @end deftypefn

function a = abs_parts (v)
  re = abs (real (double (v)));  im = abs (imag (double (v)));
  re(isnan (re)) = 0;  im(isnan (im)) = 0;
  a = re + im;
endfunction
