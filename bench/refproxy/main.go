// Command refproxy is the benchmark's bare reference proxy: the standard
// library's httputil.ReverseProxy in front of one upstream, flushing every
// write at once (FlushInterval -1), with a transport tuned like agentgw's
// upstream client. It prints "listening on ADDR" (and "debug listening on
// ADDR" with -debug-addr) on stdout once ready.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/http/pprof"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen `address`")
	upstream := flag.String("upstream", "", "upstream base `URL`, e.g. http://127.0.0.1:9000")
	h2c := flag.Bool("h2c", false, "speak HTTP/2 cleartext (prior knowledge) to the upstream")
	debugAddr := flag.String("debug-addr", "", "serve net/http/pprof on this `address`")
	flag.Parse()
	if err := run(*addr, *upstream, *debugAddr, *h2c); err != nil {
		fmt.Fprintln(os.Stderr, "refproxy:", err)
		os.Exit(1)
	}
}

func run(addr, upstream, debugAddr string, h2c bool) error {
	target, err := url.Parse(upstream)
	if err != nil || target.Host == "" {
		return fmt.Errorf("-upstream %q is not an absolute URL", upstream)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	proxy := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target) },
		FlushInterval: -1,
		Transport:     transport(h2c),
	}
	if debugAddr != "" {
		if err := serve(ctx, debugAddr, "debug listening on", debugMux(), true); err != nil {
			return err
		}
	}
	return serve(ctx, addr, "listening on", fullDuplex(proxy), false)
}

// fullDuplex lets the proxy keep reading the inbound request body after the
// upstream's response headers went out. Without it the HTTP/1 server closes
// the body on the first response write, and the transport's last read of
// it (checking that the body is not longer than its Content-Length) fails
// and tears the upstream connection down mid-stream: golang/go#40747, seen
// here as about one truncated stream in 5,000 at saturation. Closing the
// body afterwards avoids golang/go#68560.
func fullDuplex(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).EnableFullDuplex()
		defer r.Body.Close()
		h.ServeHTTP(w, r)
	})
}

// transport is http.DefaultTransport tuned as agentgw's upstream client is.
func transport(h2c bool) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableCompression = true
	t.MaxIdleConns = 512
	t.MaxIdleConnsPerHost = 256
	if h2c {
		t.Protocols = new(http.Protocols)
		t.Protocols.SetUnencryptedHTTP2(true)
		t.Protocols.SetHTTP2(true)
	}
	return t
}

// debugMux serves the net/http/pprof handlers.
func debugMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// serve listens on addr, prints "<label> ADDR" and serves h until ctx ends,
// in the background or blocking.
func serve(ctx context.Context, addr, label string, h http.Handler, background bool) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	fmt.Printf("%s %s\n", label, ln.Addr())
	if background {
		go func() { _ = srv.Serve(ln) }()
		return nil
	}
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving: %w", err)
	}
	return nil
}
