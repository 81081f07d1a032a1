package main

// curateAdmin tests the admin screens in the browser (see curateSections).
func curateAdmin(e *curateEnv) {
}
