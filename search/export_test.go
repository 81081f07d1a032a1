package search

// PaceEvery is how often KeepPace reads the backlog while it waits, for
// the external tests.
const PaceEvery = paceEvery
