package main

// curateStorage tests the storage screens in the browser (see curateSections).
func curateStorage(e *curateEnv) {
}
