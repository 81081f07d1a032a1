package meili

// SpeedFresh is how long an IndexTime reading answers (speedFresh).
const SpeedFresh = speedFresh
