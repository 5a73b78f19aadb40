#include "textflag.h"

// func Make()
// A frame of Room bytes, never written: the prologue the assembler adds
// (no NOSPLIT) grows the stack when that much is not free.
TEXT ·Make(SB), 0, $4096-0
	RET
