package lenient

import "testing"

// The rules the fault-injection oracle called for on pairs of faults
// (internal/faultinject): each reading that is a guess is refused, and
// its near miss, which has one reading, is still repaired.
func TestRepairRefusesGuessesAfterTwoFaults(t *testing.T) {
	checkRepairs(t, []repairCase{
		// A quote never moves over white space, escaped or invisible
		// too (faultmodel.QuoteMovesOver): the white space is layout, or
		// a string's own where the quotes enclose it.
		{"an invisible character after an empty string", "{\"a\": \"\"\u200b, \"b\": 1}", `{"a":"","b":1}`, InvisibleSpace},
		{"an invisible character before an empty string", "{\"a\": \u200b\"\"}", `{"a":""}`, InvisibleSpace},
		{"escaped white space touching a string's opening quote", `{"a": \n"x"}`, `{"a":"x"}`, EscapedWhitespace},
		{"a string starting with a raw tab, its quote after one", "{\n\t\"a\": [\n\t\"\tx\",\n\t\tfalse\n\t]\n}", `{"a":["\tx",false]}`, FixSyntax},
		{"escaped white space before an empty string", `{"a": \r\n""}`, `{"a":""}`, EscapedWhitespace},
		{"quote right after a line break", "{\n  \"genre\": \"Sci-fi\n\"}", `{"genre":"Sci-fi\n"}`, FixSyntax},
		// Past the model's reach the scanner reads them alike.
		{"past the model: an invisible character before an empty string", pastModel("{\"a\": \u200b\"\"}"), `{"a":""}`, InvisibleSpace},
		{"past the model: escaped white space touching an opening quote", pastModel(`{"a": \n"x"}`), `{"a":"x"}`, EscapedWhitespace},
		{"past the model: a string starting with a raw tab", pastModel("{\n\t\"a\": [\n\t\"\tx\",\n\t\tfalse\n\t]\n}"), `{"a":["\tx",false]}`, FixSyntax},
		{"past the model: a line break right before a closing quote", pastModel("{\n  \"genre\": \"Sci-fi\n\"}"), `{"genre":"Sci-fi\n"}`, FixSyntax},
		{"cut nested object, no key repeated", `{"a": {"b": "x", "c": "y"`, `{"a":{"b":"x","c":"y"}}`, FixSyntax},
		{"a '#' comment glued to a string's quote, holding text", "{\n\t\"a\": \"x\"# a note // more\n}", `{"a":"x"}`, FixSyntax},
		{"a closing reasoning tag after quoted prose", "The user said \"Paris\"</think>\n{\"city\": \"Paris\"}", `{"city":"Paris"}`, StripThinking},
		{"a closing reasoning tag, then quoted prose", "plan</think> Calling \"weather\".\n{\"city\": \"Paris\"}", `{"city":"Paris"}`, StripThinking},
		{"a line comment running to the closers, after a value", `{"a": ["x"] // note y}`, `{"a":["x"]}`, FixSyntax},
		{"escaped white space after a comma in an array, glued to the comma", `{"a": ["x",\n "y"]}`, `{"a":["x","y"]}`, EscapedWhitespace},
		{"an inner quote and a URL, the string closed before a comma", "{\n  \"q\": \"open \"http://a.example\" now\",\n  \"n\": 1\n}", `{"q":"open \"http://a.example\" now","n":1}`, FixSyntax},
		{"an encoded object needing repair, a string with an escaped quote inside", `"{\"a\": \"say \\\"hi\\\" now\", 'b': 1}"`, `{"a":"say \"hi\" now","b":1}`, DoubleEncoded},
		{"a stray quote glued to the object", `'{"a": 1}`, `{"a": 1}`, ExtractObject},
		{"a stray quote on the line before an object that is not indented", "'\n{\"a\": 1}", `{"a": 1}`, ExtractObject},
		{"an escaped layout that breaks lines between members", `{\n  "a": [1],\n  "c": "x"\n}`, `{"a":[1],"c":"x"}`, EscapedWhitespace},
		{"doubled braces, a key holding a balanced pair", `{{"{x}": {}}}`, `{"{x}":{}}`, DoubledBraces},
		{"outer brace missing after a nested object", `{"a": 1, "b": {"c": ["x", 2]}`, `{"a":1,"b":{"c":["x",2]}}`, FixSyntax},
		{"outer brace missing after nested objects", "{\n  \"a\": {\"b\": {\"c\": 1}}", `{"a":{"b":{"c":1}}}`, FixSyntax},
		{"encoded object, complete", `"{\"a\": \"x\", 'b': 1}"`, `{"a":"x","b":1}`, DoubleEncoded},
		{"placeholder in prose, no extra brace", `Weather for {city}: {'city': 'Paris'}`, `{"city":"Paris"}`, Placeholders},
		{"extra brace, no brace or colon before the object", "Here are the arguments.\n{'a': {}}}", `{"a":{}}`, ExtractObject},
		{"colon missing across a line break, commas present", "{\"a\"\n  \"b\", \"c\": 1}", `{"a":"b","c":1}`, MissingColon},
		{"comma missing before a key, colons present", `{"a": "b" "c": 1}`, `{"a":"b","c":1}`, FixSyntax},
		{"doubled braces, closed", `{{"a": 1, "b": 'x'}}`, `{"a":1,"b":"x"}`, DoubledBraces},
		{"invisible space between tokens", "{\"q\": \"x\"\u00a0}", `{"q":"x"}`, InvisibleSpace},
		{"cut after a string, no invisible character", `{"q": "x", "r": ""`, `{"q":"x","r":""}`, FixSyntax},
		{"line break inside a string", "{\"a\": \"line 1\nline 2\"}", `{"a":"line 1\nline 2"}`, FixSyntax},
		{"file content ending in a line break, one-line text", "{\"c\": \"f() {\n\tx\n}\n\"}", `{"c":"f() {\n\tx\n}\n"}`, FixSyntax},
		{"line break before the quote, one-line text", "{\"a\": \"x\n\", \"b\": 1}", `{"a":"x\n","b":1}`, FixSyntax},
		{"comma missing between objects, none nested", `{"a": [{"b": 1} {"e": 3}]}`, `{"a":[{"b":1},{"e":3}]}`, FixSyntax},
		{"inner quotes, none escaped", `{"a": "say "hi" now", "b": 1}`, `{"a":"say \"hi\" now","b":1}`, FixSyntax},
		{"token strings double-encoded, quotes escaped only", `"{a:<|\"|>x<|\"|>}"`, `{"a":"x"}`, TemplateQuotes},
		{"trailing comma in an array, comma after it", `{"a": [1, 2,], "b": 3}`, `{"a":[1,2],"b":3}`, FixSyntax},
		{"comma missing after an array, no trailing comma", "{\"a\": [1, 2]\n \"b\": 3}", `{"a":[1,2],"b":3}`, FixSyntax},
		{"a word after the object, past a space", `{"a": 1} done`, `{"a":1}`, ExtractObject},
		{"an empty string, then an item after a comma", "{\"k\": [\"\", 'x']}", `{"k":["","x"]}`, FixSyntax},
		{"escaped object, inner quotes encoded", `{\"k\": \"say \\\"hi\\\"\"}`, `{"k":"say \"hi\""}`, DoubleEncoded},
		{"escaped object, inner quotes encoded, white space escaped between tokens", `{\"k\"\n: \"say \\\"hi\\\"\"}`, "{\"k\"\n: \"say \\\"hi\\\"\"}", DoubleEncoded},
		{"escaped object, escaped white space between items", `{\"a\": [\"x\",\n  1\n]}`, "{\"a\": [\"x\",\n  1\n]}", DoubleEncoded},
		{"escaped object, an escaped tab inside an item", `{\"a\": [\"\t\"]}`, `{"a":["\t"]}`, DoubleEncoded},
		{"encoded object, an escaped slash inside a string", `"{\"p\": \"a\/b\"}"`, `{"p": "a/b"}`, DoubleEncoded},
		{"encoded object laid out with escaped line breaks", `"{\n  \"cast\": \"x\"\n}"`, "{\n  \"cast\": \"x\"\n}", DoubleEncoded},
		{"escaped object, no escape but quotes, a Python literal", `{\"k\": True, \"p\": \"x\"}`, `{"k":true,"p":"x"}`, DoubleEncoded},
		{"colon missing before a bracket on the same line", `{"a": 1, "x" []}`, `{"a":1,"x":[]}`, MissingColon},
		{"a cut after white space", "{\"k\": \"x\", \"n\": null  \t", `{"k":"x","n":null}`, FixSyntax},
		{"an inner quote after a space", `{"k":" a "é"<think>"}`, `{"k":" a \"é\"<think>"}`, FixSyntax},
		{"an inner quote after a word, before punctuation", `{"k": "5' 11" tall", "n": 1}`, `{"k":"5' 11\" tall","n":1}`, FixSyntax},
		{"a string ending with a closer, the closers as written", `{"a": {"b": "x}"}, "c": 1,}`, `{"a":{"b":"x}"},"c":1}`, FixSyntax},
		{"doubled braces, a closer changed inside", `{{"k": [1, 4}, "m": 2}}`, `{"k":[1,4],"m":2}`, DoubledBraces},
		{"a ']' after the object, no string at a bracket", `{"a": "x", "c": {}}]`, `{"a":"x","c":{}}`, StrayCloser},
		{"the arguments opened with '{' and closed with ']', empty", `{\n]`, `{}`, WrongCloser},
		{"a '+' glued to quotes in an object", `{"a": "x"+"y", 'b': 1}`, `{"a":"xy","b":1}`, JoinStrings},
		{"an inner quote, then the object's closer after the next quote", `{"a": "say "hi" now", "b": "}"}`, `{"a":"say \"hi\" now","b":"}"}`, FixSyntax},
		{"a trailing comma after a string that is not empty", "{\"a\": \" \", \n}", `{"a":" "}`, FixSyntax},
		{"an empty string indented on its own line", "{\n  \"p\": [\n    \"\"\n  ],\n  't': 1\n}", `{"p":[""],"t":1}`, FixSyntax},
		{"an empty string after the layout's space", "{\n  \"p\": \"\"\n  \"t\": 1\n}", `{"p":"","t":1}`, FixSyntax},
		{"a string ending with an escaped quote, no quote missing", `{"c": "x\"", 'd': 1}`, `{"c":"x\"","d":1}`, FixSyntax},
		{"a ']' after a comma, before a member", "{\"a\": 1,]\n \"b\": 2}", `{"a":1,"b":2}`, WrongCloser},
		{"an item ending with a backslash escape, a comma missing", `{"a": ["x\\n" "y"]}`, `{"a":["x\\n","y"]}`, FixSyntax},
		{"a tab inside a key's word", "{\"key\t_\": 'v'}", `{"key\t_":"v"}`, FixSyntax},
		{"inner quotes around a URL", `{"c": "[LINK]("https://google.com")"}`, `{"c":"[LINK](\"https://google.com\")"}`, FixSyntax},
		{"doubled braces, a key ending with a matched '}'", `{{"{x}":{}}}`, `{"{x}":{}}`, DoubledBraces},
		{"a string ending with a comma, a comma after it, no quote missing", `{"a": "x,", "b": 1,}`, `{"a":"x,","b":1}`, FixSyntax},
		{"a string ending with a comma, no comma after it", "{\n\t'a': \"x,\"\n}", `{"a":"x,"}`, FixSyntax},
		{"an encoded object, an escaped invisible character inside a string", `"{\"a\":\"#\u00a0\"}"`, "{\"a\":\"#\u00a0\"}", DoubleEncoded},
		{"a line of prose after the object, a backslash in it", "{\"q\": \"x\"}\nSee C:\\temp for the file.", `{"q":"x"}`, ExtractObject},
		{"a closing fence glued after the object", "```json\n{\"q\": \"x\"}```", `{"q":"x"}`, CodeFence},
		{"an opening fence after the object, past a line break", "{\"q\": \"x\"}\n```json\n", `{"q":"x"}`, CodeFence},
		{"a glued template token", `{"q": "x"}<|im_end|>`, `{"q":"x"}`, TemplateTokens},
		{"inner quotes, then a word that is no literal, in an array", `{"c": ["say "hi" nullify"]}`, `{"c":["say \"hi\" nullify"]}`, FixSyntax},
		{"a line break and deeper indentation in a laid-out text", "{\n  \"c\": \"if x:\n    y()\",\n  \"n\": 1\n}", `{"c":"if x:\n    y()","n":1}`, FixSyntax},
		{"a line comment after a string and a space", "{\n  \"a\": \"x\" # note\n}", `{"a":"x"}`, FixSyntax},
		{"closers missing at the end, no string ending with one", `{"a": {"b": "x", "c": true`, `{"a":{"b":"x","c":true}}`, FixSyntax},
		{"an extra brace after an object ending with a number", "Here it is.\n{\"a\": 1}}", `{"a": 1}`, ExtractObject},
		{"escaped white space before a string, the text opening with it", `{\n"a": \n"x"\n}`, `{"a":"x"}`, EscapedWhitespace},
		{"a string starting with a raw tab after a bracket", "{\"a\": [\"\tx\"]}", `{"a":["\tx"]}`, FixSyntax},
		{"a no-break space after a string", "{\"a\": \"x\"\u00a0}", `{"a":"x"}`, InvisibleSpace},
		{"a value starting with a space, in a compact text", `{"a":" x", "b":1,}`, `{"a":" x","b":1}`, FixSyntax},
		{"a value starting with a space, after the layout's space", `{"a": " x", "b": 1,}`, `{"a":" x","b":1}`, FixSyntax},
		{"a value starting with more spaces than the layout's", `{"a": 1, "b":'  x'}`, `{"a":1,"b":"  x"}`, FixSyntax},
		{"a key ending with an opening bracket", "```json\n{\"tpl\": \"{x}\", \"k{\": 2}\n```", `{"tpl": "{x}", "k{": 2}`, CodeFence},
		{"an inner quote, a line break without a comma", "{\"a\": \"say \"hi\" now\nthen\"}", `{"a":"say \"hi\" now\nthen"}`, FixSyntax},
		{"a spaced key missing its opening quote after the brace", `{b c": 2, "a": 1}`, `{"b c":2,"a":1}`, MissingQuote},
		{"an inner quote, then a '}' in an object", "{\"c\": \"say \"hi\" twice\n}\nf()\", \"n\": 1}", `{"c":"say \"hi\" twice\n}\nf()","n":1}`, FixSyntax},
		{"a string ending with a character, in an escaped layout", `{\n  "a": [1],\n  "b": "y\tz"\n}`, `{"a":[1],"b":"y\tz"}`, EscapedWhitespace},
		{"a wrong closer, no re-send", `{"a": {"b": 1]}`, `{"a": {"b": 1}}`, WrongCloser},
		{"a key holding a placeholder", `{'a{b}': 1,}`, `{"a{b}":1}`, FixSyntax},
		{"a block comment holding an apostrophe and braces", `{"a": /* it's {x} */ "x", "c": 1,}`, `{"a":"x","c":1}`, FixSyntax},
		{"an escaped backslash before a closing quote", `{"a": "x\\", "b": 1,}`, `{"a":"x\\","b":1}`, FixSyntax},
		{"an escaped backslash after inner quotes", `{"a": "say "hi" \\ now",}`, `{"a":"say \"hi\" \\ now"}`, FixSyntax},
		{"a backslash before letters that are no hex", `{"p":"C:\data"}`, `{"p":"C:\\data"}`, FixSyntax},
		{"a number sign in a word on the object's line", `Issue#4: {'a': 1}`, `{"a":1}`, ExtractObject},
		{"an issue number on the object's line", `For issue #12 the call is {'a': 1}`, `{"a":1}`, ExtractObject},
		{"a glob on the object's line", `Files under src/**/*.go, with {'a': 1}`, `{"a":1}`, ExtractObject},
		{"a URL on the object's line", `See https://x.example/a: {'a': 1}`, `{"a":1}`, ExtractObject},
		{"a heading on the line before the object", "# Arguments\n{'a': 1}", `{"a":1}`, ExtractObject},
		{"a block comment closed before the object", `/* c */ {'a': 1}`, `{"a":1}`, ExtractObject},
		{"a comment after the object", "{'a':1} # done", `{"a":1}`, FixSyntax},
		{"two numbers apart by a space, after a comma", "{'a':[4, 5 6]}", `{"a":[4,5,6]}`, FixSyntax},
		{"a key apart from a value quoted with another mark", `{"k":'42' "c":1}`, `{"k":"42","c":1}`, FixSyntax},
		{"a block comment after a comma, in an array", `{"c": ["a", /* x */ "b"]}`, `{"c":["a","b"]}`, FixSyntax},
		{"inner quotes around a comma in code", `{"p": "a.py", "c": "env.get("K", "d")"}`, `{"p":"a.py","c":"env.get(\"K\", \"d\")"}`, FixSyntax},
		{"inner quotes around a comma in code, then a member", `{"c": "f("a", "b");", "n": 1}`, `{"c":"f(\"a\", \"b\");","n":1}`, FixSyntax},
	})
	checkRefusals(t, []refusalCase{
		// A quote moved past a bracket at a string's edge, and a closer
		// guessed that the bracket would balance.
		{"a ']' after the object, a string ending with '}'", "{\"a\": {\"b\": \"x}\", \"c\": 1}\n]", "a string value starts or ends with a bracket"},
		{"a wrong closer, a string starting with '['", `{"a": "[x"], `, "a string value starts or ends with a bracket"},
		{"an extra brace, a string holding only '{'", `{"a:"{"}}`, "a string value starts or ends with a bracket"},
		{"doubled braces, the last closer changed", `{{"x": -0.25, "y": null]}`, "an object opened with '{{' needed its closing brackets guessed"},
		{"doubled braces, cut", `{{"x": -0.25, "y": null`, "an object opened with '{{' was cut off"},
		{"an inner quote between letters, in an array", `{"a": ["volume"p"rice", "x"]}`, "stands between two letters or digits"},
		{"an inner quote between letters, over a comma", `{"a": ["Attendanc"e, "Info"]}`, "stands between two letters or digits"},
		{"an item missing its opening quote at the end of the text", `{"a": ["x", y"`, "is not quoted"},
		{"an empty container opened with '{', closed with ']', escaped white space in it", `{"data":{\n]}`, "a ']' at byte 11 of the object closes an object"},
		{"a key read up to its colon, the text cut", `{"time:""  `, "followed by a text cut off"},
		{"a key read up to its colon, a quote and a space after it", "{\n  \"id:\" é[x\"\n}", "a quote and white space or a backslash follow it"},
		{"a string ending with a comma, a comma after it", "{\n\t\"a\": \"x,\"\n\t,b\": 1\n}", "ends with a comma, a comma follows it, and a quote is missing"},
		{"an encoded object, an escaped invisible character after a quote", `"{\"a\":\"#\"\u00a0}"`, "escaped white space follows a string's closing quote"},
		{"a string ending with another escape than the layout's", `{\n  "a": [1],\n  "b": "y\t"\n}`, "follows a string that ends with an escape"},
		{"a string ending with an escaped backslash, in an escaped layout", `{\n"id": "hello\\"\n}`, "follows a string that ends with an escape"},
		{"an inner quote, then the array's closer", `{"a": ["C:/"*,] "say"]}`, "in an array is followed by a ']' before any other quote"},
		{"a '+' glued to a quote in an array", `{"a": ["x"+"y"]}`, "in an array is joined with a '+' glued to a quote"},
		{"a ']' after a comma: a '[' dropped before the value reads too", `{"a":[[1]],]}`, "closes an object while no array is open"},
		{"a ']' after a trailing comma and escaped white space", `{"id":[42],\r\n]}`, "closes an object while no array is open"},
		{"a string in single quotes ending with an unpaired double quote", pastModel(`{"u": '{\"a\": 1}"' "r": 100}`), "in single quotes starts or ends with a double quote it does not pair"},
		{"a string ending with an escaped quote, a quote missing", `{"c": "x\"",d": 1}`, "a string ends with an escaped quote, and a quote is missing"},
		{"a tab after a space in a key", pastModel("{\"a \tb\": 'v'}"), "is not followed by a colon and a value"},
		{"an empty object, then a string with no comma", `{"a": [{} "k"]}`, "follows an empty container or one closed after a trailing comma"},
		{"a quote between an apostrophe and a letter", "{\"a\": \"it'\"s// x \"y\"\n}", "stands between two letters or digits"},
		{"escaped white space after a comma in an array closed by '}'", `{"a": [" a","",\r\n}}`, "stands where an array item belongs"},
		{"an item ending with an escaped backslash, a no-break space, a comma missing", "{\"a\": [\"\\\\\"\u00a0\"y\"]}", "follows a string ending with an escaped backslash"},
		{"a quote inside an emoji", "{\"a\": [\"x\" \U0001F44D\"\U0001F3FD y\"]}", "stands between two letters or digits"},
		{"an escaped object, an escaped invisible character before a quote", `{\"a\":\u2028\"x\"}`, "escaped white space follows a string's closing quote"},
		{"escaped white space between a string and a comma", `{\t"a": "x", "b": "//"\t, "c": 1}`, "an escaped tab at byte 22 stands between a string's closing quote and a comma"},
		{"an inner quote, then a line break in a laid-out text", "{\n    \"q\": \" <think\">\n// it's \"x\"\n}", "runs over a line break onto a comment line"},
		{"a key read up to its colon, a quote and a backslash after it", `{"url:"\"\n","b":"d"}`, "a quote and white space or a backslash follow it"},
		{"a doubled quote before a key holding a member's colon and brackets", `{""x:{},"":[]}`, "is not followed by a colon and a value"},
		{"an empty piece joined", `{'k': ""+ ""}`, "joined with '+' to or from an empty piece"},
		{"an empty piece joined, spaced", pastModel(`{'k': "" + "x"}`), "joined with '+' to or from an empty piece"},
		{"an extra brace after a colon after punctuation", `}"",:{}}`, "may close an object whose opening brace is missing"},
		// Re-sends whose pieces nest: a stream sent again, or objects
		// nested with their closers missing?
		{"re-sends read as nested objects", "{\n \"a\": {\n  \"b\": [\n{\n \"a\": {\n  \"b\": [\n   1,{\n \"a\": {\n  \"b\": [\n   1,\n   2\n  ]\n }\n}\n]", "reads both as an unfinished stream and as a stream sent again"},
		{"a word glued after the object", `{}d`, "a word is glued to the object's closing brace"},
		{"a re-send starting where a value belongs", "{\"a\":{\"a\":null,\"b\":true}{\"a", "unexpected character"},
		{"an extra brace after a colon after a bracket", `]"_id"]:{}}`, "may close an object whose opening brace is missing"},
		{"an extra brace after a key and an escaped line break", `}"k"\n : {}}`, "may close an object whose opening brace is missing"},
		{"a key repeated where a closer was changed", "{\"m\": {\"t\": null, \"id\": 1\n,\n\"t\": null}]", "a key repeats in an object whose closing brackets had to be guessed"},
		// Also the object with only its quotes escaped: C:\\temp.
		{"escaped object, a backslash encoded", `{\"k\": \"C:\\\\temp\"}`, "whose escapes read two ways"},
		{"escaped CSV-quoted object, a backslash encoded", `{\"\"k\"\": \"\"C:\\\\temp\"\"}`, "whose escapes read two ways"},
		{"encoded object, a backslash encoded", `"{\"k\": \"C:\\\\temp\"}"`, "whose escapes read two ways"},
		// The second reading repaired as the first: a fault both share,
		// or white space escaped between tokens, does not rule it out.
		{"escaped object, a backslash encoded, a Python literal", `{\"k\": True, \"p\": \"C:\\\\temp\"}`, "whose escapes read two ways"},
		{"escaped object, a backslash encoded, white space escaped between tokens", `{\"k\"\n: \"C:\\\\temp\"}`, "whose escapes read two ways"},
		// The object may be a key's value, the brace before it lost.
		{"extra brace after a quoted word", `"name"{}}`, "may close an object whose opening brace is missing"},
		{"extra brace after a bare key glued to quotes", `""grade:{}}`, "may close an object whose opening brace is missing"},
		{"a cut after escaped white space", `{"k": "x", "n": null  \t`, "cut off after escaped white space"},
		{"an inner quote after only white space", `{"k":" "é"<think>"}`, "follows only white space after its opening quote"},
		// The closing brace may be a string's character, the quotes
		// misplaced: {"q": "}27\" monitor"} with a quote moved.
		{"a quote glued after the object", `{"q": ""}\" 27 monitor"`, "text glued to the object's closing brace holds a quote or a backslash"},
		{"a backslash glued after the object", `{"q":" "}\`, "text glued to the object's closing brace holds a quote or a backslash"},
		// An unpaired inner quote before a comma after which a member may
		// start stays a guess.
		{"inner quote, then a key", pastModel(`{"c": "f("a", "b": 1}`), "holds an unescaped quote, and where the value ends is ambiguous"},
		{"inner quote, then a key missing its colon", `{"c": "f("a", "b" 1}`, "holds an unescaped quote, and where the value ends is ambiguous"},
		{"inner quote, then a word and a letter", `{"c": "f("a", "b"x"}`, "holds an unescaped quote, and where the value ends is ambiguous"},
		{"inner quote, then a word and a comma", `{"c": "f("a", "b", 1}`, "holds an unescaped quote, and where the value ends is ambiguous"},
		// A key glued to a string quoted with another mark: '42' and a
		// comma missing, or 42 with a quote added and the comma mistyped?
		{"a key glued to a single-quoted value", pastModel(`{"k":'42'"c":1}`), "their quote marks of different kinds"},
		// A stray ']' after a comma: its own, or is an earlier ']' the
		// one written too early?
		{"a stray bracket, an earlier one maybe early", `{"a":["x",null,[null],1],]}`, "closes an object while no array is open"},
		// A string right after its colon starting with the spaces the
		// layout puts there: its quote moved past them ("k": 0.5)?
		// An item ending in a comma, then another with no comma: the
		// items' comma inside the string, its quote misplaced?
		{"an item ending in a comma, then a string", `{"a": ["x," "b"]}`, "follows a string ending in a comma, with no comma between"},
		// In an array a quote then a number or a literal: a comma missing
		// between two items, or quotes inside one?
		{"a thousands separator or a comma dropped, after a nested array's comma", `{"a":[[1,2] 9 500]}`, "follows a number after one space"},
		{"a key glued to a string quoted with typographic quotes", pastModel("{\"k\":“42”\"c\":1}"), "their quote marks of different kinds"},
		{"inner quote after a comma and a block comment, in an array", `{"c": ["a, /* x */ "b"]}`, "follows a comma in an array"},
		{"inner quote in an array item", `{"c": ["f("a", "b")"]}`, "holds an unescaped quote, and where the value ends is ambiguous"},
		// {"t": {"k": null}, "items": [], "k": null} with the inner '}'
		// dropped and the end cut: "k" repeats where the closers are guessed.
		{"repeated key, closers added at the end", `{"t": {"k": "x", "items": [], "k": "x"`, "a key repeats in an object whose closing brackets had to be guessed"},
		{"repeated key, a bracket read as another", `{"m": {"n": {"c": "x", "k": "v", "c": "x"}, "d": [1, 2}}`, "a key repeats in an object whose closing brackets had to be guessed"},
		{"extra brace may close a placeholder's brace", `{items}: {}}`, "may balance a brace in the text before it"},
		{"extra brace after a bare word and a colon: a key, its object's brace missing", `Here: {'a': {}}}`, "may close an object whose opening brace is missing"},
		{"extra brace after a key on a line of its own", pastModel("Note\n  items: {\"a\": 1}}"), "may close an object whose opening brace is missing"},
		{"extra brace after a quoted key", pastModel(`"a": 1, "b": {"c": 2}}`), "may close an object whose opening brace is missing"},
		{"a quoted key before the object: its brace missing", `"b": {"c": 2}`, "the value of a key written before it"},
		// One fault past the cheapest, a list of the one string is known: the readings differ.
		{"colon missing across a line break, then a comma", pastModel("{\"k\"\n  \"v\"\n  \"w\": []\n}"), "which separators are missing is ambiguous"},
		{"comma missing before a key, then a colon across a line", pastModel("{\"x\": 1 \"k\"\n  \"v\"}"), "which separators are missing is ambiguous"},
		{"doubled braces, cut", `{{"n": 0, "h": {"n": 0, "w": "x"`, "an object opened with '{{' was cut off"},
		{"cut object sent twice", "{\"a\": [\"x\", [\"y\"]\n{\"a\": [\"x\", [\"y\"]", "a comma missing between items was inserted"},
		// The text before the object: a name and '=', a comment opener.
		{"a keyword argument", `id={"name": "x"}`, "the value of a name written before it with '='"},
		// A quote inside a string after which the text reads on as
		// JSON: a stray quote, or the string's end?
		{"an inner quote, then a space and the closing quote", `{"a": "2" ", "b": ""}`, "is followed by another quoted string"},
		{"an inner quote, then a comma at the end of a line", pastModel("{\"a\": [\"e\" x,\n\"\"]}"), "runs over a comma at the end of a line"},
		// More readings the independent injector found on pairs.
		{"a key missing its closing quote, holding backquotes", "{\n  \"`x`: true,\n}", "a key at byte 4"},
		{"a key missing its closing quote, holding &quot;", `{"&quot;z&quot;: 0.0,}`, "cut off inside a key"},
		{"a stream sent again and a stray bracket", `{"a": 1, "b": {"a": 1, "b": 2}]`, "reads both as an unfinished stream and as a stream sent again"},
		{"a string in a text laid out with escaped line breaks, ending with one", `{\n    "a": "x\n"\n}`, "ends with the escaped white space the text is laid out with"},
		{"a number ending with its point, then digits after a space", `{"c": [5, 99. 99]}`, "ends with a point and digits follow it"},
		// A key holding white space, its opening quote missing after
		// white space: the key's own spaces, or the layout?
		{"a spaced key missing its opening quote", `{ sp _0":1}`, "a bare word where a key or value belongs"},
		{"a line comment glued to an empty string's quote", "{\n  \"a\": \"\"#\n}", "touches the closing quote of a string of white space"},
		{"a closing quote moved right past an object's brace", `{"a": [{"n": "x}"]}`, "closes an object after a string holding a closing bracket"},
		{"an inner quote, a word and the object's brace", pastModel(`{"o": [{"id": "make clea"n}, "New York"]}`), "is followed by a word and the closing bracket of its container"},
		{"a key's quote moved past its colon, the next key's before its comma", `{"h:"2024",w":1}`, "is not followed by a colon"},
		{"a key's quote moved past its colon, before a quoted array", `{"d:"[42,5]",b":1}`, "is not followed by a colon"},
		{"an inner quote, then a comma and a comment", "{\"m\":\"x\">,// it's \"y\"\n\"c\":[]}", "runs over a comma and a comment"},
		{"an empty line comment glued to a string's quote", "{\n  \"a\": [\n    \"x\"#\n  ]\n}", "or is empty"},
		{"a closing reasoning tag between quotes, before the object", ",\n  \"k\": \"x</think>y\"\n{}", "a reasoning tag stands between quotes on its line"},
		{"a reasoning block between quotes, before the object", "\"k\": \"<think>x</think>\"\n{}", "a reasoning tag stands between quotes on its line"},
		{"a key read up to its colon, a quote after it, an extra brace", `{"s": "x", "e:""  }}`, "has a quote right after the colon"},
		{"closers missing at the end, a string ending with one", `{"a": {"b": "x}", "c": true`, "a string value ends with one"},
		// The outer brace missing after a nested object: taken only where
		// nothing else explains the text.
		{"a text ending with a brace, a member of the nested object may belong outside it", `{"a": {"b": 1, "c": {}`, "a closing bracket is missing, and where is ambiguous"},
		{"a text ending with a brace, two closers missing", `{"a":[ {"b": 1},{ "c": 2}`, "a closing bracket is missing, and where is ambiguous"},
		{"a text ending with a brace, a trailing comma", `{"o": {"n": null,}`, "a closing bracket is missing, and where is ambiguous"},
		{"an escaped backslash before an escaped quote, in an escaped layout", `{\n  “k\\\"q”: {}\n}`, "whether it is encoded once more is ambiguous"},
		{"a text ending with an empty object in an array", `{"q": [{}`, "a closing bracket is missing, and where is ambiguous"},
		// A colon before the object, however the key is written: its
		// value, the outer object's brace missing?
		{"extra brace after prose ending in a colon", `Here are the arguments: {'a': {}}}`, "the text before it a key"},
		{"extra brace after a key in backquotes", "`report`: {\"a\": 1}}", "the text before it a key"},
		{"extra brace after a key and a colon on lines of their own", "report\n:\n{\"a\": 1}}", "the text before it a key"},
		{"an object in a block comment, then a brace", `/* {"a": "}"} */{`, "the object is inside a comment"},
		{"a key quoted with HTML entities before the object", `&quot;a&quot;:{}}`, "the text before it a key"},
		// A number, one space, three digits: one number split by a
		// thousands separator? (A space before fewer digits is a comma
		// dropped: [9 0] is two items.)
		{"two numbers apart by a space, as a thousands separator", `{'a':[9 500]}`, "follows a number after one space"},
		{"a quote then a control character", "{\"u\": [1, \"e\" \x00,\r\n\"\", 1]}", "is followed by a control character"},
		// Escapes written otherwise: each has two readings.
		{"a \\u escape with its u lost", `{"text":"see \00e9 here"}`, "a backslash before four hex digits"},
		// A re-send needs a piece longer than the two bytes pieces are
		// found by: {" then {"":1} is a key holding a brace, its quote
		// doubled.
		{"a brace in a key, its quote doubled", `{"{"":1}`, "a key at byte 1 is not followed by a colon"},
		{"a cut stream sent again and cut again", `{"a" : 1 ,"b"    {"a" : 1 ,"b" :false`, "reads both as an unfinished stream and as a stream sent again"},
		// Escaped white space in an item's slot: the item "\n" unquoted?
		{"escaped white space alone in an array, a comment after it", "{\"n\": [\n  \\t\n  # note\n]}", "stands where an array item belongs"},
		{"inner quotes, one escaped and one not", pastModel(`{"a": "say \"hi" now", "b": 1}`), "escapes some quotes and not others"},
		{"token strings double-encoded with an escape: a line break, or backslash-n?", `"{a:<|\"|>line\nnext<|\"|>}"`, "escapes read two ways"},
		// A stream sent again, cut inside a key: its quotes' parity no
		// longer tells strings apart, and the second reading is weighed
		// as it is.
		{"escaped object sent again, a backslash encoded", `{\"v\": \"a\tb\", \"f\": \"C:\\temp\", \"o{\"v\": \"a\tb\", \"f\": \"C:\\temp\", \"o\": 1}`, "whose escapes read two ways"},
		{"encoded object, white space escaped after a number, a backslash encoded", `"{\"a\": 42\n, \"b\": \"C:\\\\temp\"}"`, "whose escapes read two ways"},
		{"encoded object, an escaped line break after a string's quote", `"{\"cast\": \"x\"\n}"`, "escaped white space follows a string's closing quote"},
		{"escaped object, an escaped slash outside its strings", "{\n  \\\"e\\\": true\\/\\/ note\n}", "or an escape stands outside the object's strings"},
		{"escaped object, an escape decoded twice, a stray quote", `{\"c\": \"a\\n\", \"d\": \"\\\"\"}`, "whose escapes read two ways"},
		{"escaped object, a line continuation", pastModel("{\\\"k\\\":\\\"3\\\n.14\\\"}"), "holding a backslash at the end of a line"},
		// An escaped white space alone where an item belongs: an empty
		// slot once decoded, or the item "\t" with its quotes dropped?
		{"escaped object, an escaped invisible character alone in an array", `{\"a\": [[\u2028]]}`, "stands alone where an array item belongs"},
		{"the same, a quote before the escape", `"{a:<|\"|>\"x\n<|\"|>}"`, "escapes read two ways"},
		{"array closed after a trailing comma, then an item on the next line", "{\"a\": [[42,]\n \"x\"]}", "one closed after a trailing comma"},
		{"the same on one line", `{"a": [[42,] "x"]}`, "one closed after a trailing comma"},
		{"quote right after a line break, in an array", "{\n\t\"a\": [\n\t\t\"x\n\t]\n\"}", "holds a line break and the indentation of its own line"},
		{"a line break and the string's indentation, then a bracket", "{\n\t\"a\": [\n\t\t\"x:,\n\t\t]: y\"\n\t]\n}", "holds a line break and the indentation of its own line"},
	})
}

// Real model outputs showed these: a path whose backslashes were left
// unescaped next to one that reads as an escape, and JSON around the
// object that is not prose.
func TestRepairRefusesMixedReadings(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"backslashes that start no escape, alone", `{'p': 'C:\xyz\qa'}`, `{"p":"C:\\xyz\\qa"}`, FixSyntax},
		// \b and \f write control characters no argument holds: beside a
		// lone backslash they are a path's too, either order.
		{"prose with a colon after the object", `{"a": 1} Note: done`, `{"a":1}`, ExtractObject},
		{"a label on a line of its own after the object", "{\"a\": 1}\nObservation:", `{"a":1}`, ExtractObject},
	})
	checkRefusals(t, []refusalCase{
		{"a backslash starting no escape and an escape", `{"p": "C:\new\app.exe"}`, "starts no JSON escape and an escape too"},
		{"the same, the other order", `{"p": "C:\app\new"}`, "starts no JSON escape and an escape too"},
		{"\\b, a backslash starting no escape and an escape", `{"p": "C:\bin\app\new"}`, "starts no JSON escape and an escape too"},
		{"\\b, an escape, then a backslash starting no escape", `{"p": "C:\bin\temp\x"}`, "starts no JSON escape and an escape too"},
		{"\\b, an escaped backslash, a backslash starting no escape", `{"p": "C:\bin\\x\app"}`, "starts no JSON escape and an escape too"},
		{"an array before the object", `[]{"key": "value"}`, "one item of a larger value"},
		{"a bare key and colon on the object's line, at the end", `{"a": 1} b:`, "the text after the complete object continues it"},
	})
}

// The wrapper rows (around, commented) read these: each has one reading
// within the window, so the model runs it where the scanner refused.
func TestTheModelReadsWhatTheWrapperRowsSkip(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"a cut template token glued to the closing brace", "{\n  \"k\": \"\"}<|im_end", `{"k":""}`, ExtractObject},
		{"an opening fence glued after the object", "{\"q\": \" \"}```jsonnotes", `{"q":" "}`, ExtractObject},
		{"an object on a comment line", `# {}`, `{}`, ExtractObject},
		{"closing braces alone before the object: a stray brace", `}   {"extra": 5}`, `{"extra":5}`, WrongCloser},
		{"an object on a comment line, after a tag", `<arguments># {"a": 1}</arguments>`, `{"a":1}`, ExtractObject},
		{"an object on a comment line, after a name and '='", `args=# {"a": 1}`, `{"a":1}`, ExtractObject},
	})
	// What the rows may not skip: a complete object, an open reasoning
	// block, a name's '=' other than the arguments', JSON's marks.
	checkRefusals(t, []refusalCase{
		{"two objects, prose between", `Options: {"city": "Oslo"} or {"q": 1}`, ""},
		{"an object inside open reasoning", `<think>I'll send {"n": 1} once I`, ""},
		{"an object before open reasoning", `{"n": 1}<think>or maybe`, ""},
		{"an object before a closing reasoning tag", `{"n": 1}</think>`, ""},
		{"a keyword argument", `id={"name": "x"}`, ""},
		{"an array before the object", `[]{"key": "value"}`, ""},
		{"members before the object", ",\n  \"k\": \"x\"\n{}", ""},
	})
}

// A whole-text reading (a layer, a habit) made after a re-sent copy is
// dropped, and a habit's two readings at the cheapest cost: the window
// decides each, as the model makes its edits in any order.
func TestWholeTextReadingsAfterAnotherFault(t *testing.T) {
	checkRepairs(t, []repairCase{
		{"an encoded object re-sent: the layer read once the copy is dropped", `"{\"a\": 1}"` + "\n" + `"{\"a\": 1}"`, `{"a":1}`, DoubleEncoded},
	})
	checkRefusals(t, []refusalCase{
		// Read over both copies, \" is a quote and \\t a backslash and a
		// t; read over the first alone, the body decodes to a tab.
		{"an encoded body re-sent, an escape inside", `{\"m\": \"\\t\"}` + "\n" + `{\"m\": \"\\t\"}`, "ambiguous"},
		// Over the whole stream the habit pairs the quotes otherwise and
		// reads \' as a quote's escape.
		{"a single-quoted stream re-sent, an escaped apostrophe", `{'a{'a': 'it\'s', 'n': 1}`, "ambiguous"},
		// A backslash written as itself, or \u2028 with its u dropped:
		// both cost two.
		{"strings joined with '+', a backslash starting no escape", `{"mo"+ "de":"\20"+ "28"}`, "ambiguous"},
	})
}
