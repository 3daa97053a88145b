package main

import (
	"context"
	"errors"
	"expvar"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// serveDebug serves pprof and expvar, and metrics at /metrics when it is
// not nil, on addr until ctx ends: a separate listener for operators,
// never the public one.
func serveDebug(ctx context.Context, addr string, metrics http.Handler, log *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("debug listener on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("/debug/vars", expvar.Handler())
	paths := "/debug/pprof/, /debug/vars"
	if metrics != nil {
		mux.Handle("GET /metrics", metrics)
		paths += ", /metrics"
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	log.Info("debug endpoints listening", "addr", ln.Addr().String(), "paths", paths)
	if beyondLoopback(ln.Addr()) {
		log.Warn("the debug listener has no auth and listens beyond loopback: any host that reaches it reads profiles and metrics; set debugAddr to 127.0.0.1:PORT",
			"addr", ln.Addr().String())
	}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("debug listener stopped", "err", err)
		}
	}()
	return nil
}
