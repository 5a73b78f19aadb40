package readings

// Exported for the external tests.
var (
	HabitRewritesAll = habitRewrites
	MayHoldHabit     = mayHoldHabit
)
