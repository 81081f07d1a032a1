package testproc

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// waitStopped returns only once the kernel shows every thread stopped,
// and a running process is not taken for a stopped one. The process is
// busy on a core: there the kernel stops it only after kill(2) returns,
// often late enough for a look right after it to find it running (about
// one time in four on a 2-core machine), so that many rounds catch a
// waitStopped that does not wait.
func TestWaitStoppedSeesTheProcessStopped(t *testing.T) {
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
	pid := cmd.Process.Pid

	for round := 0; round < 200; round++ {
		if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		waitStopped(pid, done)
		if !allThreadsStopped(pid) {
			t.Fatalf("round %d: waitStopped returned before the process stopped", round)
		}
		if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); allThreadsStopped(pid); {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: a continued process still seen stopped", round)
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
	if allThreadsStopped(1 << 30) {
		t.Fatal("a process that does not exist seen stopped")
	}
}
