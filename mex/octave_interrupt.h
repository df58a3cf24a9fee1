/*
 * Octave's Ctrl-C flag for the C gateway (mex/octave_interrupt.cc).  From Octave 8 on,
 * quit.h declares octave_interrupt_state for C++ only (a std::atomic<int>), so the C code
 * reads and clears it through these two functions.
 */
#ifndef GPUDOT_OCTAVE_INTERRUPT_H
#define GPUDOT_OCTAVE_INTERRUPT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Non-zero while an interrupt is pending (the engine's poll callback). */
int gpudot_interrupt_pending(void);

/* Clears a pending interrupt that the engine has answered, so the next call works. */
void gpudot_interrupt_clear(void);

#ifdef __cplusplus
}
#endif

#endif
