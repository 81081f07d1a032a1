package main

// curateJobs tests the jobs screens in the browser (see curateSections).
func curateJobs(e *curateEnv) {
}
