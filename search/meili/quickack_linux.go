package meili

import (
	"net"
	"syscall"
)

// quickAck sets TCP_QUICKACK on the connection (see transport.go).
func quickAck(c *net.TCPConn) {
	rc, err := c.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_QUICKACK, 1)
	})
}
