package saidex

import (
	"encoding/json"
	"strings"
)

// unwrapArg1 returns the value of "__arg1" when input is a JSON object
// holding that string member, as langchaingo's agents do for plain tools,
// and input unchanged otherwise.
func unwrapArg1(input string) string {
	if t := strings.TrimLeft(input, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return input
	}
	var m map[string]any
	if json.Unmarshal([]byte(input), &m) != nil {
		return input
	}
	if s, ok := m["__arg1"].(string); ok && len(m) == 1 {
		return s
	}
	return input
}
