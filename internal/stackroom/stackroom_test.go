package stackroom

import (
	"runtime"
	"testing"
	"unsafe"
)

// deep uses about n bytes of stack, in frames of a little over 128 bytes.
//
//go:noinline
func deep(n int) byte {
	var pad [128]byte
	pad[n%len(pad)] = byte(n)
	if n <= len(pad) {
		return pad[0]
	}
	return deep(n-len(pad)) + pad[1]
}

// moves reports, run on a fresh goroutine, whether its stack moved (was
// copied to a larger one) while it used about n bytes, after Make when
// room is set.
func moves(room bool, n int) bool {
	done := make(chan bool)
	go func() {
		var a byte
		if room {
			Make()
		}
		before := uintptr(unsafe.Pointer(&a))
		deep(n)
		done <- uintptr(unsafe.Pointer(&a)) != before
	}()
	return <-done
}

// After Make, calls that use up to most of Room bytes of stack do not
// grow it; without Make, the same calls on a fresh goroutine do (the
// control, which shows the test can see a stack move).
func TestMakeLeavesRoom(t *testing.T) {
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skip("Make does nothing on", runtime.GOARCH)
	}
	const use = Room * 3 / 4
	if !moves(false, use) {
		t.Skip("a fresh goroutine's stack holds", use, "bytes already: nothing to show")
	}
	for range 100 {
		if moves(true, use) {
			t.Fatalf("the stack moved in a call of %d bytes after Make", use)
		}
	}
}

// Make is safe at any depth, and on a stack with room to spare.
func TestMakeAtDepth(t *testing.T) {
	for _, n := range []int{0, 1 << 10, 64 << 10} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			var f func(int)
			f = func(d int) {
				if d > 0 {
					f(d - 1)
					return
				}
				Make()
			}
			f(n / 64)
			Make()
		}()
		<-done
	}
}

func BenchmarkMakeWithRoom(b *testing.B) {
	for b.Loop() {
		Make()
	}
}
