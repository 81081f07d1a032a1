package testbucket

import (
	"os/exec"
	"syscall"
)

// killWithParent makes the kernel kill the server if the test binary dies
// without running its cleanups (a panic, a -timeout abort, SIGKILL), so no
// orphan keeps a port and a temporary directory.
func killWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
