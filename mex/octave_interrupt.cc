/* Octave's Ctrl-C flag, read from C++ where every Octave release declares it
 * (see octave_interrupt.h). */
#include "octave-config.h"
#include "quit.h"

#include "octave_interrupt.h"

int gpudot_interrupt_pending(void)
{
    return octave_interrupt_state > 0;
}

void gpudot_interrupt_clear(void)
{
    octave_interrupt_state = 0;
}
