package harness

import (
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestStableAddr: the address is free (it can be listened on) and its
// port lies below the ephemeral range, where no outgoing connection can
// take it while a restarted process is down.
func TestStableAddr(t *testing.T) {
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if n, err := strconv.Atoi(strings.Fields(string(b))[0]); err == nil && n > 20000 {
			low = n
		}
	}
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
		if port < 20000 || port >= low {
			t.Errorf("%s: port outside 20000-%d", addr, low-1)
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatalf("%s is not free: %v", addr, err)
		}
		ln.Close()
	}
}
