// Command nativetool is the native tool the tests run: its first argument is
// the command, the rest are --key=value flags.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: nativetool command [--key=value]...")
		os.Exit(2)
	}
	flags := parseFlags(os.Args[2:])
	switch os.Args[1] {
	case "echo":
		_ = json.NewEncoder(os.Stdout).Encode(map[string]any{"argv": os.Args[1:]})
	case "text":
		fmt.Println("  hello from native  ")
	case "env":
		env := os.Environ()
		sort.Strings(env)
		_ = json.NewEncoder(os.Stdout).Encode(env)
	case "pwd":
		wd, _ := os.Getwd()
		fmt.Println(wd)
	case "fail":
		fmt.Fprintln(os.Stderr, "something broke")
		os.Exit(3)
	case "big":
		n, _ := strconv.Atoi(flags["n"])
		fmt.Print(strings.Repeat("x", n))
	case "touch":
		_ = os.WriteFile(flags["path"], []byte("ran"), 0o644)
	case "spawn":
		spawn(flags["pidfile"])
	case "gotest":
		// A stand-in for `go test`: its -exec flag names a program it runs.
		if prog := flags["exec"]; prog != "" {
			_ = exec.Command("sh", "-c", prog).Run()
		}
		fmt.Println("ok")
	case "hang":
		time.Sleep(time.Hour)
	default:
		fmt.Fprintf(os.Stderr, "unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
}

// spawn starts a child that hangs, writes "parentpid childpid" to pidfile
// and hangs itself.
func spawn(pidfile string) {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	child := exec.Command(self, "hang")
	if err := child.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pids := fmt.Sprintf("%d %d", os.Getpid(), child.Process.Pid)
	if err := os.WriteFile(pidfile+".tmp", []byte(pids), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	_ = os.Rename(pidfile+".tmp", pidfile)
	time.Sleep(time.Hour)
}

// parseFlags reads flags the way Go's flag package (and so `go test`)
// does: -name or --name, its value after '=' or else the next argument;
// other arguments (packages) are skipped; "--" ends the flags.
func parseFlags(args []string) map[string]string {
	flags := map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			continue
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if k, v, ok := strings.Cut(name, "="); ok {
			flags[k] = v
			continue
		}
		if i+1 < len(args) {
			i++
			flags[name] = args[i]
		}
	}
	return flags
}
