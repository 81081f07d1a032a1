//go:build !linux

package meili

import "net"

// quickAck is Linux's TCP_QUICKACK; elsewhere acknowledgements keep their
// system's timing.
func quickAck(*net.TCPConn) {}
