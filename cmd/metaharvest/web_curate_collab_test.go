package main

// curateCollab tests the collab screens in the browser (see curateSections).
func curateCollab(e *curateEnv) {
}
