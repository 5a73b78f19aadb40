//go:build amd64 || arm64

package stackroom

// Make ensures that at least Room bytes of stack are free on the calling
// goroutine, growing its stack once if they are not (the runtime's own
// check on entry to a function with a frame of Room bytes, a frame it never
// writes). On a stack with the room already, it costs a comparison.
func Make()
