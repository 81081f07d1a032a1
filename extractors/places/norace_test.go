//go:build !race

package places

const raceEnabled = false
