# The texinfo help of an Octave .m file (its first "## -*- texinfo -*-" comment block) as a
# C string macro GPUDOT_HELP_<name>, for the compiled entries' docstrings (one source of
# help: the .m files).  Usage: awk -v name=gdot -f help_string.awk m/gdot.m
BEGIN { inside = 0; found = 0; printf "#define GPUDOT_HELP_%s \\\n", name }
/^## -\*- texinfo -\*-/ { inside = 1; found = 1 }
inside && /^##/ {
    line = $0
    sub(/^## ?/, "", line)
    gsub(/\\/, "\\\\", line)
    gsub(/"/, "\\\"", line)
    printf "    \"%s\\n\" \\\n", line
    next
}
inside { exit }
END {
    print "    \"\""
    if (!found) {
        print "gpudot: no texinfo help in " FILENAME > "/dev/stderr"
        exit 1
    }
}
