// Package stackroom makes room on a goroutine's stack before a call that
// runs a framework's tool on it.
//
// A goroutine starts with a 2 KiB stack, and the runtime doubles it, by
// copying, each time a call needs more. A framework that runs each tool
// call on a goroutine of its own (Eino's ToolsNode, an MCP server's
// request handlers) grows that stack once, inside the tool: decoding the
// arguments alone needs several KiB. A guard that checks the call first,
// on the same goroutine, used to cross the first limit itself, so the
// stack grew twice (to 4 KiB in the check, to 8 KiB or more in the tool),
// and the second copy, of a deeper stack, cost more than the check. Make
// asks for the room at once: the stack grows a single time, as it would
// have without the guard.
package stackroom

// Room is the stack, in bytes, that Make leaves free: enough for the check
// and for the first frames of a decoder after it.
const Room = 4096
