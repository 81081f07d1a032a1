//go:build !linux

package testbucket

import "os/exec"

// killWithParent has no portable equivalent outside Linux; cleanups and
// RunMain stop the server there.
func killWithParent(*exec.Cmd) {}
