package harness

import (
	"net"
	"strconv"
	"testing"
)

// TestStableAddr: the address is free (it can be listened on) and its
// port lies below the ephemeral range, where no outgoing connection can
// take it while a restarted process is down.
func TestStableAddr(t *testing.T) {
	for range 20 {
		addr, err := StableAddr()
		if err != nil {
			t.Fatal(err)
		}
		_, p, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatal(err)
		}
		port, _ := strconv.Atoi(p)
		if port < 20000 || port >= 32768 {
			t.Errorf("%s: port outside 20000-32767", addr)
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatalf("%s is not free: %v", addr, err)
		}
		ln.Close()
	}
}
