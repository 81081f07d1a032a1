package search

// PaceEvery is how often KeepPace reads the backlog while it waits, for
// the external tests.
const PaceEvery = paceEvery

// TakeBacklog is how many claims an indexer keeps for its sender.
const TakeBacklog = takeBacklog
