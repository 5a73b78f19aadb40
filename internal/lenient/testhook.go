package lenient

// tagSearchHook, set by tests only, is given the text each search for a
// reasoning tag was run on and the match (nil when none), so a test can
// count how much text stripThinking searches: a count, where a timing
// would depend on the machine's load. Nil otherwise: one nil check per
// tag search.
var tagSearchHook func(text string, match []int)
