## -*- texinfo -*-
## @deftypefn {} {@var{v} =} hex_value (@var{h}, @var{cls})
## Test helper: the number whose IEEE bits @var{h} spells in hex (tests/exact_ref.py's
## files), single where @var{cls} is "s", else double.
## @end deftypefn

function v = hex_value (h, cls)
  if (cls == "s")
    v = typecast (uint32 (hex2dec (h)), "single");
  else
    v = typecast (uint64 (hex2dec (h(1:8))) * 2^32 + uint64 (hex2dec (h(9:16))), "double");
  endif
endfunction
