# A classdef file whose help block stands before `classdef` (where Octave 8 and later read
# it), with the block repeated right after the classdef line (where Octave 7 reads it).
# Usage: awk -f classdef_help.awk m/garray.m > OUT/garray.m
/^## -\*- texinfo -\*-/ && !done { inside = 1 }
inside && /^##/ { help = help $0 "\n" }
inside && !/^##/ { inside = 0; done = 1 }
{ print }
/^classdef / && !copied { printf "%s", help; copied = 1 }
END { if (help == "") { print "classdef_help.awk: no help block in " FILENAME > "/dev/stderr"; exit 1 } }
