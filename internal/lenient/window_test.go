package lenient

import (
	"slices"
	"testing"

	"github.com/saidex/saidex-go/internal/jsonread"
)

// Texts the scanner reads one way whose window (the fault model's
// readings at the cheapest cost and one fault more) holds another value:
// the readings differ, so each is refused, naming the faults (or, where a
// cheapest reading cuts a value, refused as cut). Each comment gives two
// readings of the window, with the rows they undo and their cost. With
// the tool's schema, a reading that names a member the tool does not
// have is dropped first (TestRepairDropsAReadingTheSchemaRules).
func TestRepairRefusesWhereTheWindowHoldsTwoValues(t *testing.T) {
	checkRefusals(t, []refusalCase{
		// {"a":"b","c":1} (single_quotes+colon, 2) or {"'a' 'b', 'c'":1} (quote+unclosed_key, 3)
		{"single-quoted key", "{'a' 'b', 'c': 1}", "reads two ways within one fault"},
		// {"a":1,"xs":["p","q"]} (stray_brace+cut, 2) cut inside a value
		{"missing ] after a trailing comma", "{\"a\": 1, \"xs\": [\"p\", \"q\",}", "cut off where a value is cut"},
		// {"o":{"xs":[{"b":1}],"ys":[3,4]}} (dropped_closer, 1) or {"o":{"xs":[{"b":1}]},"ys":[3,4]} (dropped_closer+swapped_closer, 2)
		{"missing ] in a nested object", "{\"o\": {\"xs\": [{\"b\": 1}]\n, \"ys\": [3, 4}\n}", "reads two ways within one fault"},
		// {"xs":[[1,2]]} (swapped_closer, 1) or {"xs":[[1],2]} (dropped_closer+stray_brace, 2)
		{"} inside an array of arrays", "{\"xs\": [[1, 2}]}", "reads two ways within one fault"},
		// {"a":1," city":"Oslo"} (quote, 2) or {"a":1,"city":"Oslo"} (quote, 2)
		{"a later key", "{\"a\": 1, city\": \"Oslo\"}", "reads two ways within one fault"},
		// {"a":":hello","b":1} (colon+unclosed_key, 2) or {"a":"hello","b":1} (quote, 2)
		{"a value", "{\"a\":hello\", \"b\": 1}", "reads two ways within one fault"},
		// {"a":":New York City"} (colon+unclosed_key, 2) or {"a":"New York City"} (quote, 2)
		{"a value of words", "{\"a\":New York City\"}", "reads two ways within one fault"},
		// {"xs":["a","b","c"]} (quote, 2) or {"xs":["a\",b","c"]} (quote, 2)
		{"an array item", "{\"xs\": [\"a\",b\", \"c\"]}", "reads two ways within one fault"},
		// {"city":"Paris","days":3} (repeated_object, 1) or {"city":"Paris","{city":"Paris","days":3} (quote_moved, 2)
		{"cut after a comma, then whole", "{\"city\": \"Paris\",{\"city\": \"Paris\", \"days\": 3}", "reads two ways within one fault"},
		// {"o":{"a":1,"b":2}} (repeated_object, 1) or {"o":{"a":1,"o":{"a":1},"b":2}} (stray_brace+dropped_closer, 2)
		{"nested objects", "{\"o\": {\"a\": 1, {\"o\": {\"a\": 1, \"b\": 2}}", "reads two ways within one fault"},
		// {"a":"x"} (quote_style+repeated_key, 2) or {"a":"x"," 'a'":"x"} (quote+unclosed_key, 3)
		{"repeated key, equal values, closers as written", "{\"a\": \"x\", 'a': \"x\"}", "reads two ways within one fault"},
		// {"s":"x","e: 42}}":null} (cut, 1) cut inside a value or {"s":"x","e":42} (unclosed_key+stray_brace, 2)
		{"a key read up to its colon, a number after it, an extra brace", "{\"s\": \"x\", \"e: 42}}", "cut off where a value is cut"},
		// {"c":"x"} (escaped_space+escaped_space, 2) or {"c":"x\n"} (escaped_space+escape, 2)
		{"an escaped layout, one member", "{\\n  \"c\": \"x\"\\n}", "reads two ways within one fault"},
		// {"a":["x","y"]} (quote, 2) or {"a":["x\",y"]} (quote, 2)
		{"an item missing its opening quote, a closer after it", "{\"a\": [\"x\",y\"]}", "reads two ways within one fault"},
		// {"a":[{},{}]} (comma, 1) or {"a":[{}]} (stray_brace+stray_brace, 2)
		{"empty objects with no comma between", "{\"a\": [{}\n{}]}", "reads two ways within one fault"},
		// {"k":"v"} (unclosed_key, 1) or {"k:":"v"} (colon+unclosed_key, 2)
		{"a key read up to its colon, a quote glued to the value", "{\"k:\"v\"}", "reads two ways within one fault"},
		// {"key":"value"} (unclosed_key, 1) or {"key:":"value"} (colon+unclosed_key, 2)
		{"a key missing its closing quote before a quoted word", "{\"key:\"value\"}", "reads two ways within one fault"},
		// {"a":1," b":2} (quote, 2) or {"a":1,"b":2} (quote, 2)
		{"a key missing its opening quote after a comma and a space", "{\"a\": 1, b\": 2}", "reads two ways within one fault"},
		// {"a":"x\\n"} (escaped_space+escaped_space, 2) or {"a":"x\\n\n"} (escaped_space+escape, 2)
		{"a string ending with an escaped backslash and n, in an escaped layout", "{\\n    \"a\": \"x\\\\n\"\\n}", "reads two ways within one fault"},
		// {"items":1,"$r{items":1,"$re{items":1,"$ref":null} (quote, 2) or {"items":1,"$re{items":1,"$ref":null} (repeated_object+quote, 3)
		{"re-sends whose keys lost their opening quote", "{items\":1,\"$r{items\":1,\"$re{items\":1,\"$ref\":null}", "reads two ways within one fault"},
		// {"a":1,"b":2} (repeated_object, 1) or {"a":1,"{a":1,"b":2} (quote_moved, 2)
		{"a re-send after a first member", "{\"a\":1,{\"a\":1,\"b\":2}", "reads two ways within one fault"},
		// {"a":[9,0]} (quote_style+comma, 2) or {"a":["9\n 0"]} (quote_style+unquoted+escape, 3)
		{"two numbers apart by a line break", "{'a':[9\n 0]}", "reads two ways within one fault"},
		// {"k":"42","c":1} (single_quotes+comma, 2) or {"k\":'42''c'":1} (quote+unclosed_key, 3)
		{"a key glued to a value quoted with the same mark", "{\"k\":'42''c':1}", "reads two ways within one fault"},
		// {"p":"C:\\bin\\app.exe"} (literal_backslashes, 1) or {"p":"C:\bin\\app.exe"} (escape, 1)
		{"a backslash starting no escape, and \\b", "{\"p\": \"C:\\bin\\app.exe\"}", "reads two ways within one fault"},
		// {"p":"D:\\x\\files\\q"} (literal_backslashes, 1) or {"p":"D:\\x\files\\q"} (escape+escape, 2)
		{"\\f after a backslash starting no escape", "{\"p\": \"D:\\x\\files\\q\"}", "reads two ways within one fault"},
		// {"k":"v","m":2} (escaped_space+escaped_space, 2) or {"k":"v\n","m":2} (escaped_space+escape, 2)
		{"after a string value, the layout's since the brace", "{\\n\"k\": \"v\"\\n, \"m\": 2}", "reads two ways within one fault"},
		// {"k \n":1} (unquoted, 1) or {"k":1} (unquoted+escaped_space, 2)
		{"after a bare key", "{k \\n: 1}", "reads two ways within one fault"},
		// {"picked":[3,4]} (unclosed_key, 1) or {"picked: [3, 4]}":null} (cut, 1) cut inside a value
		{"before an array", "{\"picked: [3, 4]}", "cut off where a value is cut"},
		// {"k":1,"m":2} (unclosed_key, 1) or {"k: ":1,"m":2} (colon+unclosed_key, 2)
		{"before more members", "{\"k: 1, \"m\": 2}", "reads two ways within one fault"},
		// {"k":"v"} (unclosed_key, 1) or {"k: ":"v"} (colon+unclosed_key, 2)
		{"before a string", "{\"k: \"v\"}", "reads two ways within one fault"},
		// {"a":1,"k":true} (unclosed_key, 1) or {"a":1,"k: true}":null} (cut, 1) cut inside a value
		{"a later member", "{\"a\": 1, \"k: true}", "cut off where a value is cut"},
		// {"k":["a"]} (around+unclosed_key, 2) or {"k: ":["a"]} (around+colon+unclosed_key, 3)
		{"after reasoning", "<think>x</think>{\"k: [\"a\"]}", "reads two ways within one fault"},
		// {"k":[[1],[2]]} (swapped_closer, 1) or {"k":[[1,[2]]]} (stray_brace+dropped_closer, 2)
		{"} for ] in a nested array", "{\"k\": [[1}, [2]]}", "reads two ways within one fault"},
		// {"k":[7,0.5]} (loose_number+loose_number, 2) or {"k":["+",7,0.5]} (unquoted+comma+loose_number, 3)
		{"plus sign", "{\"k\": [+7, +0.5]}", "reads two ways within one fault"},
	})
}

// With the tool's members known (Options.Foreign), a reading that names
// another member is dropped from a window of one object's readings, and
// the reading left runs; where the readings differ otherwise (a closer
// placed elsewhere, a copy dropped or not), the schema does not choose.
func TestRepairDropsAReadingTheSchemaRules(t *testing.T) {
	members := func(names ...string) Options {
		opt := fix
		opt.Foreign = func(reading string) bool {
			v, err := jsonread.Decode(reading)
			obj, ok := v.(map[string]any)
			if err != nil || !ok {
				return false
			}
			for k := range obj {
				if !slices.Contains(names, k) {
					return true
				}
			}
			return false
		}
		return opt
	}
	for _, tt := range []struct {
		raw  string
		opt  Options
		want string // "" when refused
	}{
		{`{"k: "v"}`, members("k"), `{"k":"v"}`},
		{`{"selected: [1, 2], "n": 1}`, members("selected", "n"), `{"selected":[1,2],"n":1}`},
		{`{"selected: [1, 2]}`, members("selected"), ""}, // a cut inside the key, which ends in '}', is a cheapest reading
		{`{"a": 1, "k: true, "m": 2}`, members("a", "k", "m"), `{"a":1,"k":true,"m":2}`},
		{`{"a": 1, city": "Oslo"}`, members("a", "city"), `{"a":1,"city":"Oslo"}`},
		{`{"a":hello", "b": 1}`, members("a", "b"), ""}, // "hello", or ":hello" after a key whose quote and colon were dropped
		{`{"k: "v"}`, members("k", "k:"), ""},           // both readings name members the tool has
		{`{"xs": [[1, 2}]}`, members("xs"), ""},         // two placements of one array's items
		{`{"a":1,{"a":1,"b":2}`, members("a", "b"), ""}, // a copy dropped, or a key {a: never chosen between
		{`{"a": 1, "k: 2}`, members("a", "k"), ""},      // a cut inside the key is a cheapest reading
	} {
		res, err := Repair(tt.raw, tt.opt)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("Repair(%q) = %s, want a refusal", tt.raw, res.JSON)
		case tt.want != "" && (err != nil || !sameValue(res.JSON, tt.want)):
			t.Errorf("Repair(%q) = %s, %v; want %s", tt.raw, res.JSON, err, tt.want)
		}
	}
}
