package harness

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat;
// it is 100 on every Linux architecture Go supports.
const clockTicks = 100

// CPU returns the user plus system CPU time the process has used so far.
func CPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("reading CPU time: %w", err)
	}
	// The command name (field 2) may contain spaces: fields are counted
	// after its closing parenthesis, where field 3 (state) comes first.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, fmt.Errorf("parsing /proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("parsing /proc/%d/stat: %d fields", pid, len(f))
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("parsing /proc/%d/stat: utime %q, stime %q", pid, f[11], f[12])
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

// RSS returns the resident set size of the process in bytes (VmRSS).
func RSS(pid int) (int64, error) {
	m, err := ReadMemory(pid)
	return m.RSS, err
}

// Memory is a process's resident memory from /proc/<pid>/status, in bytes.
type Memory struct {
	RSS  int64 `json:"vm_rss"`   // VmRSS: resident, all of it
	File int64 `json:"rss_file"` // RssFile: file-backed pages (the executable's, mapped files)
	Anon int64 `json:"rss_anon"` // RssAnon: anonymous pages (heaps, stacks)
	Peak int64 `json:"vm_hwm"`   // VmHWM: the most VmRSS has been
}

// ReadMemory reads the process's VmRSS, RssFile, RssAnon and VmHWM.
func ReadMemory(pid int) (Memory, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Memory{}, fmt.Errorf("reading resident memory: %w", err)
	}
	m, err := parseStatus(data)
	if err != nil {
		return Memory{}, fmt.Errorf("parsing /proc/%d/status: %w", pid, err)
	}
	return m, nil
}

// parseStatus reads the memory lines of a /proc/<pid>/status ("VmRSS:
// 1234 kB"); VmRSS must be there, the others are 0 when absent.
func parseStatus(data []byte) (Memory, error) {
	var m Memory
	fields := map[string]*int64{"VmRSS:": &m.RSS, "RssFile:": &m.File, "RssAnon:": &m.Anon, "VmHWM:": &m.Peak}
	seen := false
	for line := range strings.Lines(string(data)) {
		name, v, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		p := fields[name]
		if p == nil {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		if err != nil {
			return m, fmt.Errorf("%s %q: %w", name, strings.TrimSpace(v), err)
		}
		*p = kb << 10
		seen = seen || p == &m.RSS
	}
	if !seen {
		return m, errors.New("no VmRSS line")
	}
	return m, nil
}

// FDs returns how many files the process has open (/proc/<pid>/fd).
func FDs(pid int) (int, error) {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return 0, fmt.Errorf("counting open files: %w", err)
	}
	return len(ents), nil
}
