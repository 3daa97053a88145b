package harness

import (
	"os"
	"testing"
)

func TestParseStatus(t *testing.T) {
	status := "Name:\tagentgw\nVmPeak:\t 1300000 kB\nVmHWM:\t   52004 kB\nVmRSS:\t   40960 kB\n" +
		"RssAnon:\t    8704 kB\nRssFile:\t   32256 kB\nRssShmem:\t       0 kB\nThreads:\t9\n"
	m, err := parseStatus([]byte(status))
	if err != nil {
		t.Fatal(err)
	}
	want := Memory{RSS: 40960 << 10, File: 32256 << 10, Anon: 8704 << 10, Peak: 52004 << 10}
	if m != want {
		t.Errorf("parseStatus = %+v, want %+v", m, want)
	}
	if _, err := parseStatus([]byte("Name:\tx\nVmHWM:\t 1 kB\n")); err == nil {
		t.Error("no VmRSS line: no error")
	}
	if _, err := parseStatus([]byte("VmRSS:\t 12x kB\n")); err == nil {
		t.Error("a malformed VmRSS: no error")
	}
}

// TestReadMemory reads this process's own status: VmRSS is file plus
// anonymous (plus shared memory, none here) and at most the peak.
func TestReadMemory(t *testing.T) {
	m, err := ReadMemory(os.Getpid())
	if err != nil {
		t.Skip("no /proc:", err)
	}
	if m.RSS <= 0 || m.File <= 0 || m.Anon <= 0 || m.Peak < m.RSS {
		t.Errorf("ReadMemory = %+v", m)
	}
}
