// Command wasmtool is the WASI module the tests run. It reads
// {"command","parameters"} on stdin. It avoids fmt and encoding/json to
// stay small: compiling the module is the slow part of the tests.
package main

import (
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail(2, "reading stdin: "+err.Error())
	}
	msg := string(in)
	switch cmd := field(msg, "command"); cmd {
	case "echo":
		env := os.Environ()
		sort.Strings(env)
		out("{\"stdin\":" + msg + ",\"args\":" + list(os.Args) + ",\"env\":" + list(env) + "}\n")
	case "text":
		out("plain text from wasm\n")
	case "alloc":
		mb, _ := strconv.Atoi(field(msg, "mb"))
		b := make([]byte, mb<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		out(strconv.Itoa(len(b)))
	case "loop":
		for n := 0; ; n++ {
		}
	case "sleep":
		ms, _ := strconv.Atoi(field(msg, "ms"))
		time.Sleep(time.Duration(ms) * time.Millisecond)
		out("slept")
	case "read":
		b, err := os.ReadFile(field(msg, "path"))
		if err != nil {
			fail(1, "reading: "+err.Error())
		}
		out("{\"content\":" + strconv.Quote(string(b)) + "}")
	case "probe":
		out(probe(field(msg, "path")))
	case "big":
		n, _ := strconv.Atoi(field(msg, "n"))
		out(strings.Repeat("x", n))
	case "fail":
		fail(3, "wasm broke")
	default:
		fail(2, "unknown command "+cmd)
	}
}

// probe reports what the module sees of the directory dir: its entries,
// the stat of dir and of its entries, and the errors of writes into it.
func probe(dir string) string {
	var b strings.Builder
	line := func(parts ...string) { b.WriteString(strings.Join(parts, " ") + "\n") }
	errText := func(err error) string {
		if err == nil {
			return "ok"
		}
		return err.Error()
	}
	info, err := os.Stat(dir)
	if err != nil {
		return "stat: " + err.Error() + "\n"
	}
	line("dir", info.Name(), info.Mode().String())
	entries, err := os.ReadDir(dir)
	line("readdir", errText(err))
	for _, e := range entries {
		line("entry", e.Name(), e.Type().String())
		if info, err := os.Stat(dir + "/" + e.Name()); err != nil {
			line("  stat", err.Error())
		} else {
			size := "" // a directory's size depends on the host's file system
			if info.Mode().IsRegular() {
				size = strconv.FormatInt(info.Size(), 10)
			}
			line("  stat", info.Mode().String(), size)
		}
		if info, err := os.Lstat(dir + "/" + e.Name()); err != nil {
			line("  lstat", err.Error())
		} else {
			line("  lstat", info.Mode().String())
		}
	}
	line("write", errText(os.WriteFile(dir+"/new.txt", []byte("x"), 0o644)))
	f, err := os.OpenFile(dir+"/secret.txt", os.O_WRONLY, 0)
	if err == nil {
		f.Close()
	}
	line("open for write", errText(err))
	line("mkdir", errText(os.Mkdir(dir+"/newdir", 0o755)))
	line("remove", errText(os.Remove(dir+"/secret.txt")))
	line("rename", errText(os.Rename(dir+"/secret.txt", dir+"/moved.txt")))
	return b.String()
}

// field returns the string or integer value of "key" in flat JSON.
func field(msg, key string) string {
	i := strings.Index(msg, "\""+key+"\":")
	if i < 0 {
		return ""
	}
	v := msg[i+len(key)+3:]
	if strings.HasPrefix(v, "\"") {
		s, err := strconv.QuotedPrefix(v)
		if err != nil {
			return ""
		}
		u, _ := strconv.Unquote(s)
		return u
	}
	end := strings.IndexAny(v, ",}")
	if end < 0 {
		return ""
	}
	return v[:end]
}

// list renders strings as a JSON array (ASCII test data only).
func list(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return "[" + strings.Join(q, ",") + "]"
}

func out(s string) { _, _ = os.Stdout.WriteString(s) }

func fail(code int, msg string) {
	_, _ = os.Stderr.WriteString(msg + "\n")
	os.Exit(code)
}
