//go:build !linux

package tests3

import "os/exec"

// killWithParent has no portable equivalent outside Linux; cleanups and
// RunMain stop the server there.
func killWithParent(*exec.Cmd) {}
