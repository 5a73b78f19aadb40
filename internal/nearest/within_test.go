package nearest

import "testing"

func TestWithin(t *testing.T) {
	tests := []struct {
		a, b  string
		limit int
		want  bool
	}{
		{"content", "contents", 1, true},
		{"content", "Contents", 1, true}, // case is ignored
		{"content", "body", 3, false},
		{"path", "paths", 0, false},
		{"path", "path", 0, true},
		{"x", "y", -1, false},
	}
	for _, tt := range tests {
		if got := Within(tt.a, tt.b, tt.limit); got != tt.want {
			t.Errorf("Within(%q, %q, %d) = %v, want %v", tt.a, tt.b, tt.limit, got, tt.want)
		}
	}
}
