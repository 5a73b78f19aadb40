package saidex

import "strings"

// unwrapArg1 returns the value of "__arg1" when input is a JSON object
// holding that string member, as langchaingo's agents do for plain tools,
// and input unchanged otherwise.
func unwrapArg1(input string) string {
	if t := strings.TrimLeft(input, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return input
	}
	v, err := decodeJSON(input)
	if err != nil {
		return input
	}
	if m, ok := v.(map[string]any); ok && len(m) == 1 {
		if s, ok := m["__arg1"].(string); ok {
			return s
		}
	}
	return input
}
