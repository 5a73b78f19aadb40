package lenient

import (
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
)

// Every refusal reason the package can give is covered by an input that
// gets it, and the reason names what is wrong with that input. Where the
// fault model reads an input (model.go: its cheapest reading costs one
// fault or two), its example stands past the model's reach (pastModel),
// where the scanner's reason stands; the model's readings of the short
// texts are in model_test.go.
func TestEveryRefusalReasonIsCovered(t *testing.T) {
	noThinking := Options{FixSyntax: true}
	tests := []struct {
		raw, reason string
		opt         *Options // default: fix
	}{
		{"", "the arguments are empty", nil},
		{" \n ", "the arguments are only white space", nil},
		{`{"a":` + strings.Repeat("[", 10001), "the arguments are nested deeper than", nil},
		{"<think>x</think>", "the arguments hold only a reasoning block", nil},
		{pastModel(`{'k': 'x' + ''}`), "joined with '+' to or from an empty piece", nil},
		{`{"a": {{"b": 1}}, "c": 2}`, "an object inside the object opens with '{{'", nil},
		{pastModel("{'x'\n [1]}"), "followed on the next line by a bracket, with no colon", nil},
		{`{"a": 1}x`, "a word is glued to the object's closing brace", nil},
		{`{"k": 1, "n": null \n`, "cut off after escaped white space", nil},
		{`{"q": ""}\" 27 monitor"`, "text glued to the object's closing brace holds a quote", nil},
		{pastModel("{'a': [1,\u200b2]}"), "an invisible character at byte 9 touches an unquoted value", nil},
		{"<think>x</think>{'a': 1}", "stripping reasoning is disabled", &noThinking},
		{"<think>x {'a': 1}", "a <think> block is never closed", nil},
		{"<|im_end|>", "only template tokens or an empty code fence", nil},
		{"hello", "the arguments hold text but no JSON object", nil},
		{`{'a': 1}}]}`, "closing brackets after the complete object match no opening bracket", nil},
		{`{"a": 1}{"a": 2}`, "two different JSON objects were sent", nil},
		{`[{'a': 1}]`, "the object is one item of a larger value", nil},
		{`"b": {'c': 2}`, "the object is the value of a key written before it", nil},
		{`{"a": {"b": 1}, "c": 2}]`, "a ']' after the complete object may be its own closing brace mistyped", nil},
		{`{"a": 'x'`, "cut off right after a string in single quotes", nil},
		{`{"a": ["b".c,"d"]}`, "follows a comma in an array", nil},
		{`{"a": ["volume"p"rice", "x"]}`, "stands between two letters or digits", nil},
		{"{\"a\": \"x,\"\n ,b\": 1}", "a string value ends with a comma, a comma follows it, and a quote is missing", nil},
		{pastModel("{\"a\": \"\", \n}"), "a trailing comma follows an empty string", nil},
		{`{"c": "x\"",d": 1}`, "a string ends with an escaped quote, and a quote is missing", nil},
		{pastModel("{\n  'k': \"\"}<|im_end"), "a template token cut off is glued to the object's closing brace", nil},
		{`{\t"a": "x", "b": "//"\t, "c": 1}`, "an escaped tab at byte 22 stands between a string's closing quote and a comma", nil},
		{`{"time:"" `, "a key missing its closing quote before its colon is followed by a text cut off", nil},
		{`{"id:" é"}`, "holds its colon, and a quote and white space or a backslash follow it", nil},
		{`{"a": {"b": "x}", "c": 1}]`, "a closing bracket had to be guessed, and a string value starts or ends with a bracket", nil},
		{`{{"a": -0.25, "b": null]}`, "an object opened with '{{' needed its closing brackets guessed", nil},
		{`{"a": ["x]"}`, "closes an array after a string holding a closing bracket", nil},
		{`{"a": " "\t, "b": 1}`, "follows a string of white space, which may end with it", nil},
		{pastModel(`{"a": ["x", \n"y"]}`), "touches an array item's opening quote in a text that does not open with it", nil},
		{pastModel(`{"a": ["x", \n  ""]}`), "stands before an array item of white space; it may be an item written bare", nil},
		{pastModel(`{'a': {"b": 1}, "c": 2},`), "a comma after the complete object may follow a nested object closed too early", nil},
		{`{"a": [[] "x"]}`, "follows an empty container or one closed after a trailing comma", nil},
		{pastModel(`{'a': 0.5"b": 1}`), "touches the value before it with no comma", nil},
		{pastModel(`{'a': 1, "path:{id": 2}}`), "holds a colon and an opening bracket", nil},
		{`{"p": "C:\new\app.exe"}`, "starts no JSON escape and an escape too", nil},
		{`items: {'c': 2}}`, "may close an object whose opening brace is missing", nil},
		{`{"a": [3}`, "its ']' is missing, or its '[' is stray", nil},
		{`{"a": ["x"' "y"]}`, "is followed by another kind of quote mark", nil},
		{`{"a": 1} or {"b": 2}`, "two JSON objects were sent (one in the text after the first)", nil},
		{`{"a"}`, "a key before byte 4 of the object is not followed by a colon and a value", nil},
		{pastModel(`{"a" b}`), "a key at byte 1 is not followed by a colon and a value", nil},
		{`{{"a": 1}`, "closed with a single '}'", nil},
		{`{{"a": [1}, "b": [2}}}`, "does not match the open one", nil},
		{`{"xs": [{"a": 1]}, "c": 2}`, "a ']' at byte 15 of the object closes an object", nil},
		{pastModel(`{"xs": [1}, "b": [2}}`), "a '}' at byte 9 of the object closes an array", nil},
		{"{\"a: 1,\n\": 2}", "a key at byte 1 runs over a line break", nil},
		{pastModel(`{"a": 1\n}`), "escaped white space at byte 7 touches a value", nil},
		{pastModel(`{"a": [\n]}`), "escaped white space at byte 7 stands where an array item belongs", nil},
		{`{"a": 1], "b": 2}`, "a ']' at byte 7 of the object closes an object while no array is open", nil},
		{`{"a": "x`, "cut off inside a string value", nil},
		{`{"a": 1`, "cut off right after a number", nil},
		{`{"a"`, "cut off after a key, before its value", nil},
		{`{"a": [`, "cut off right after an opening bracket", nil},
		{`{"a": 1,`, "cut off after a comma", nil},
		{`{"a":`, "cut off after a colon, before the value", nil},
		{`{"a": @, 'q': 1}`, "unexpected character '@' at byte 6", nil},
		{`{"a": 1 /* x`, "cut off inside a comment", nil},
		{`{"a": -`, "cut off inside a number", nil},
		{`{"a": 1.x, 'q': 1}`, "a number at byte 6 is not a valid JSON number", nil},
		{pastModel(`{'a': 01}`), "a number at byte 6 is not a valid JSON number", nil},
		{`{ab`, "cut off inside a key", nil},
		{`{"a": 1, "b": 2 c, 'q': 1}`, "a bare word where a key or value belongs", nil},
		{`{"a": tr`, "cut off inside a value", nil},
		{`{"a": hello, 'b': 1}`, "is not quoted and is not true, false or null", nil},
		{pastModel(`{'a': "\u12G4"}`), "has an invalid \\u escape", nil},
		{`{"q": "say "hi", then", "b": 1}`, "holds an unescaped quote, and where the value ends is ambiguous", nil},
		{`{"q": "he said "x" + "y" later"}`, "holds an unescaped quote next to a '+'", nil},
		{`{"q": "a" + b}`, "is joined with '+' to something that is not a quoted string", nil},
		{`{"q": "Use "+" to add"}`, "holds a quoted '+'", nil},
		{`{"a": "x"// note`, "a comment touches a quote inside the string at byte 6", nil},
		{`{"a": {"a": 1}`, "reads both as an unfinished stream and as a stream sent again", nil},
		{`{'a': 1}`, "JSON repair is disabled", &Options{StripThinking: true}},
		{`{a:<|"|>x<|"|>}`, "between template quote tokens, and JSON repair is disabled", &Options{StripThinking: true}},
		{pastModel("{\"a\": [1, 2,]\n \"b\": 3}"), "follows an array closed after a trailing comma, with no comma", nil},
		{pastModel(`{'a': [{"b": {"c": 1}, "d": 2} {"e": 3}]}`), "follows an object with no comma, after a nested object was closed before more members", nil},
		{`{q:weather in Oslo<|"|>}`, "a template quote token pairs with none", nil},
		{`{"a": "x <|"|>y<|"|>"}`, "a template quote token is inside a string written with quote marks", nil},
		{`{a:x<|"|>, b:y<|"|>}`, "a string between template quote tokens is not where a key or value is", nil},
		{`{a:<|"|>C:\new<|"|>}`, "a string between template quote tokens holds a backslash that may be an escape", nil},
		{"{a:<|\"|>\xff<|\"|>}", "a string between template quote tokens holds bytes that are not UTF-8", nil},
		{`{"a": "x"\n y", "b": 1}`, "a quote inside the string at byte 6 is followed by a backslash", nil},
		{`{"a": "5' 11"", "b": 1}`, "a string at byte 6 holds a doubled quote", nil},
		{pastModel(`{'a': 1}, "b": 2}`), "the text after the complete object continues it", nil},
		{`{""a"": ""x"", "b": 1}`, "double some of their quotes (as CSV does) but not all", nil},
		{`{"a": 1, "a": 2}`, `the key "a" is sent more than once, with different values`, nil},
		{`{"a": {"b": 1}, "c": 2}}`, "may belong to a nested object closed too early", nil},
		{`{"a": "x{"b" "y"}`, "follows a bracket or colon", nil},
		{pastModel(`{'a': ["x"-2, 3]}`), "is followed by a number or a literal, and whether a comma is missing", nil},
		{pastModel(`{'a': [2024"x", 3]}`), "touch with no comma or white space", nil},
		{pastModel(`{"a: ": 1,}`), "a key at byte 1 ends with a colon", nil},
		{pastModel(`{"a": 1 ", b": 2}`), "a key at byte 8 starts with a comma", nil},
		{`{"a": "x," "b": 1}`, "follows a string ending in a comma", nil},
		{"{\"a\": [1,\"\n 2]}", "starts with a line break", nil},
		{`{"a": "it\'s",}`, "holds \\' (not a JSON escape)", nil},
		{"{\"a\": [\"x\n    \"y\"]}", "holds a line break and indentation before a quote", nil},
		{`{'a': 'x{"b": 1, "c": 2}`, "holds a quoted key and a colon", nil},
		{pastModel(`{'a': {"b": 1} "c": 2}`), "a key at byte 15 follows a closing brace with no comma", nil},
		{`{"a": "x" // note "b": 2}`, "a line comment at byte 10 runs over what looks like JSON", nil},
		{`{"a":false", "b": 1}`, "a literal at byte 5 is followed by a quote", nil},
		{`{"a": {"b": 1, "c": {}`, "the text ends with a closing brace while brackets are still open", nil},
		{`{"commands": ["make", "make test"`, "cut off inside an array", nil},
		{pastModel(`{{"x}70": {}}}`), "holds a key with a closing bracket it does not open", nil},
		{`{\n  "a": [1],"c": "x"\n}`, "but writes its members on one line", nil},
		{pastModel("'\n\t{\"a\": 1}"), "the text before an indented object is only quote marks", nil},
		{`"{\"a\": \"x\\\"\", 'b': 1}"`, "one of whose strings ends with an escaped quote and needed repair", nil},
		{"{\n  \"id\": \"x\">// it's \"y\"\n}", "runs over a line comment's opener to the end of its line", nil},
		{pastModel(`{"a": ["x", \t "y"]}`), "stands alone between spaces where an array item belongs", nil},
		{`{"a": ["x", // note y]}`, "runs to the closing brackets at the end of the text after a comma", nil},
		{`{"a":"x","b:""  }}`, "has a quote right after the colon, and the object's closing brackets needed guessing", nil},
		{"\"k\": \"</think>x\"\n{}", "a reasoning tag stands between quotes on its line", nil},
		{pastModel(`{\n  "k\\\"q": 1\n}`), "holds an escaped backslash before an escaped quote", nil},
		{`"{\"p\": \"C:\\temp\"}"`, "whose escapes read two ways", nil},
		{pastModel(`"{\"p\": [\t]}"`), "stands alone where an array item belongs", nil},
		{pastModel(`{"k":"x"'c':1}`), "their quote marks of different kinds", nil},
		{`{"a": ["x," "b"]}`, "an item at byte 12 follows a string ending in a comma", nil},
		{pastModel(`{"a": 1, "b":' x',}`), "a string value starts with the spaces the text's other values have", nil},
		{pastModel(`{"a": /* "x" */ 1,}`), "a block comment at byte 6 holds a double quote", nil},
		{pastModel(`{'a':"see \\"hi\\" here"}`), "follows an escaped backslash", nil},
		{`{"a":"\00e9"}`, "a backslash before four hex digits", nil},
		{pastModel("{'a':\"t\\\na\"}"), "a backslash at the end of a line", nil},
		{`id={"a": 1}`, "the value of a name written before it with '='", nil},
		{`# {'a': 1}`, "the object is inside a comment", nil},
		{`{'a':[9 500]}`, "follows a number after one space", nil},
		{`{"k: "v"}`, "reads two ways within one fault of its cheapest reading (unclosed_key at byte 3; or colon at byte 5, unclosed_key at byte 5)", nil},
		{`{"a": 1, "k: true}`, "cut off where a value is cut (cut at byte 18)", nil},
		{pastModel("{\\\"k\\\":\\\"3\\\n.14\\\"}"), "holding a backslash at the end of a line", nil},
		{`{"k": "v"\n, "m": 2}`, "follows a string's closing quote in a text that does not open with it", nil},
		{`"{\"cast\": \"x\"\n}"`, "escaped white space follows a string's closing quote", nil},
		{pastModel("{\"a\": [\"e\" x,\n\"\"]}"), "runs over a comma at the end of a line", nil},
		{pastModel(`{'a':["x" ""]}`), "an empty string at byte 10 follows a string with no comma", nil},
		{`{\n "a": "x\n"\n}`, "ends with the escaped white space the text is laid out with", nil},
		{pastModel("{'a': \"{\"\n\"b\": true}"), "follows a string holding only an opening bracket", nil},
		{`{"c": [5, 99. 99]}`, "ends with a point and digits follow it", nil},
		{`{"a": {"b": "x}", "c": true`, "a string value ends with one", nil},
		{"{\"m\":\"x\">,// it's \"y\"\n\"c\":[]}", "runs over a comma and a comment", nil},
		{"{\"a\": \"\"#\n}", "touches the closing quote of a string of white space", nil},
		{`[{"n": "x}"]`, "closes an object after a string holding a closing bracket", nil},
		{`{"id": "a"n}, "b": 1}`, "is followed by a word and the closing bracket of its container", nil},
		{"{\"u\": [\"e\" \x00]}", "is followed by a control character", nil},
		{pastModel("{'q': \" \"}```jsonnotes"), "an opening code fence is glued", nil},
		{`{"a": ["x "y"` + "\n" + ` {"b": 1}]}`, "is followed by a line break, an opening bracket or a key", nil},
		{`{"a": {,"b": 1}}`, "right after a nested object's opening brace may follow an empty object", nil},
		{`{"t": {"k": "x", "k": "x"`, "a key repeats in an object whose closing brackets had to be guessed", nil},
		{pastModel(`"{\"a\": \"x\""`), "a JSON string holding an object that is cut off", nil},
		{`{x}: {}}`, "may balance a brace in the text before it", nil},
		{pastModel("{\"a\"\n \"b\"\n \"c\": 1}"), "a key is followed by a line break instead of a colon, and a comma is missing", nil},
		{`{{"a": "x"`, "an object opened with '{{' was cut off before its '}}'", nil},
		{"{\"a\": [\"x\", [\"y\"]\n{\"a\": [\"x\", [\"y\"]", "a comma missing between items was inserted", nil},
		{pastModel("{\"a\": {}\u200b"), "cut off after invisible characters", nil},
		{`{"a": "C:\x", "b": "l1\nl2"}`, "a backslash that starts no JSON escape and one that starts an escape are both in the text", nil},
		{`{'limit': false, '_id: 'C:\\temp+{\'a": 1}'}`, "gives another value than read string by string", nil},
		{`{"na" + "me": "Ann" `, "read as written in one habit throughout (strings joined with '+'), a value is cut", nil},
	}
	var got []string
	for _, tt := range tests {
		opt := fix
		if tt.opt != nil {
			opt = *tt.opt
		}
		_, err := Repair(tt.raw, opt)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Repair(%.60q): %v, want a refusal", tt.raw, err)
			continue
		}
		if !strings.Contains(e.Reason, tt.reason) {
			t.Errorf("Repair(%.60q): reason %q, want it to contain %q", tt.raw, e.Reason, tt.reason)
		}
		got = append(got, e.Reason)
	}

	// Each reason written in the package's source is among those given.
	unreachable := map[string]bool{
		// repairBroken runs on text that did not parse; the scanner
		// normalises all it accepts that is not JSON.
		"the arguments are not valid JSON and could not be repaired without guessing": true,
		"the arguments hold no JSON object":                                           true, // the scanner starts at '{'
	}
	format := regexp.MustCompile(`malformed\("([^"]*)"`)
	for _, file := range []string{"lenient.go", "scan.go", "model.go"} {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range format.FindAllStringSubmatch(string(src), -1) {
			prefix, _, _ := strings.Cut(m[1], "%")
			if prefix == "" || unreachable[m[1]] {
				continue
			}
			covered := false
			for _, r := range got {
				covered = covered || strings.HasPrefix(r, prefix)
			}
			if !covered {
				t.Errorf("no test input gets the reason %q", m[1])
			}
		}
	}
}

// pastModel returns s after white space enough to put the text past the
// fault model's reach (maxModelBytes), where the scanner decides alone: a
// refusal the scanner gives there is the one these tests name, while
// within the model's reach the model reads the text (model_test.go).
func pastModel(s string) string { return strings.Repeat(" ", maxModelBytes) + s }
