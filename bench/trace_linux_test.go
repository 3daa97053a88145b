package main

import (
	"net"
	"os"
	"testing"
)

// TestSocketFDs classifies this process's own sockets: one accepted from a
// client of a listener and one dialled to an "upstream".
func TestSocketFDs(t *testing.T) {
	listen := mustListen(t)
	upstream := mustListen(t)
	client, err := net.Dial("tcp", listen.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	accepted, err := listen.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer accepted.Close()
	up, err := net.Dial("tcp", upstream.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()

	clients, ups, err := socketFDs(os.Getpid(), listen.Addr().(*net.TCPAddr).Port, upstream.Addr().(*net.TCPAddr).Port)
	if err != nil {
		t.Fatal(err)
	}
	if fd := connFD(t, accepted); len(clients) != 2 || !clients[fd] {
		// The listener's own socket has the local port too.
		t.Errorf("client sockets %v, want the listener's and the accepted one's (fd %d)", clients, fd)
	}
	if fd := connFD(t, up); len(ups) != 1 || !ups[fd] {
		t.Errorf("upstream sockets %v, want fd %d", ups, fd)
	}
}

func mustListen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// connFD is the file descriptor of a TCP connection.
func connFD(t *testing.T, c net.Conn) int {
	t.Helper()
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var fd int
	if err := raw.Control(func(f uintptr) { fd = int(f) }); err != nil {
		t.Fatal(err)
	}
	return fd
}
