//go:build !amd64 && !arm64

package stackroom

// Make does nothing on this architecture: the stack grows as calls need
// it, which costs time, never correctness.
func Make() {}
