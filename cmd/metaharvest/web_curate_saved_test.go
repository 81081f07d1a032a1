package main

// curateSaved tests the saved screens in the browser (see curateSections).
func curateSaved(e *curateEnv) {
}
