// Command mockupstream is the benchmark's model platform: POST
// /chat/completions answers an OpenAI-style SSE stream of N content chunks
// of S bytes with a gap G between them, a chunk with finish_reason "stop",
// optionally a usage-only chunk ("choices": []), then "data: [DONE]".
//
// Every content chunk carries its send time, "t=<unix nanoseconds>;" padded
// to S bytes, so a client can compute delivery latency through any proxy.
// The flags set the defaults; a request overrides them with the headers
// X-Mock-Chunks, X-Mock-Size, X-Mock-Gap (a Go duration), X-Mock-Usage
// (true/false) and X-Mock-Hold (true: after the first chunk, send nothing
// more and hold the stream until the client goes away).
//
// It serves HTTP/1.1 and HTTP/2 cleartext (prior knowledge) on one port and
// prints "listening on ADDR" on stdout once ready.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen `address`")
	def := spec{}
	flag.IntVar(&def.chunks, "chunks", 20, "content chunks per stream")
	flag.IntVar(&def.size, "size", 100, "content bytes per chunk")
	flag.DurationVar(&def.gap, "gap", 0, "pause between content chunks")
	flag.BoolVar(&def.usage, "usage", true, "send a usage-only chunk after the stop chunk")
	streams := flag.Int("h2-streams", 1000, "HTTP/2 concurrent streams allowed per connection")
	flag.Parse()
	if err := run(*addr, def, *streams); err != nil {
		fmt.Fprintln(os.Stderr, "mockupstream:", err)
		os.Exit(1)
	}
}

// newServer is the mock's HTTP server: HTTP/1.1 and HTTP/2 cleartext on
// one port, at most h2Streams concurrent streams per HTTP/2 connection.
//
// It sets no ReadHeaderTimeout (F13, bench/soak/README.md): net/http bounds
// a new connection's first request by it from the accept, not from the
// request's first byte as for the next request of a kept-alive connection
// (golang/go#54784). The gateway's Transport dials spare connections in
// bursts and keeps them idle up to 90 s; a POST written on one after the
// header timeout found it closed (EOF, "connection reset by peer"), and one
// written as the timeout expired, while net/http sniffed for the HTTP/2
// preface, was answered a bare "400 Bad Request" and reset. A benchmark
// peer on loopback has no slow client to guard against, so every request
// waits for its headers as long as its client takes; connections end when
// their clients close them.
func newServer(m *mock, h2Streams int) *http.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /chat/completions", m.serveChat)
	mux.HandleFunc("POST /v1/chat/completions", m.serveChat)
	srv := &http.Server{
		Handler:   mux,
		Protocols: new(http.Protocols),
		HTTP2:     &http.HTTP2Config{MaxConcurrentStreams: h2Streams},
	}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	return srv
}

// run serves until SIGINT or SIGTERM.
func run(addr string, def spec, h2Streams int) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	srv := newServer(newMock(def), h2Streams)
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	fmt.Printf("listening on %s\n", ln.Addr())
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving: %w", err)
	}
	return nil
}
