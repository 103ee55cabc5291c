// Command kvemu runs the Workers KV API emulator (internal/kvemu) on a
// loopback address, so the cloudflare store can be tried without an account:
//
//	go run ./cmd/kvemu -addr 127.0.0.1:8787
//
// It prints the base URL, account ID, namespace ID and token to use, logs each
// request, and stops on Ctrl-C.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kvemu"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		msg := err.Error()
		if !strings.HasPrefix(msg, "kvemu:") {
			msg = "kvemu: " + msg
		}
		fmt.Fprintln(os.Stderr, msg)
		os.Exit(1)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func run(args []string) error {
	fs := flag.NewFlagSet("kvemu", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8787", "loopback `host:port` to listen on")
	account := fs.String("account", "0123456789abcdef0123456789abcdef", "account `ID` the emulator serves")
	namespaces := fs.String("namespace", "overshoot0000000000000000000000", "comma-separated namespace `IDs` that exist")
	token := fs.String("token", "", "API `token` clients must send (default: a random one, printed)")
	dailyWrites := fs.Int("daily-writes", 0, "daily write quota, reset at 00:00 UTC (free plan: 1000; 0: none)")
	dailyReads := fs.Int("daily-reads", 0, "daily read quota, reset at 00:00 UTC (free plan: 100000; 0: none)")
	quiet := fs.Bool("quiet", false, "do not log requests")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q: all settings are flags (see -h)", fs.Args())
	}
	if err := kvemu.CheckLoopback(*addr); err != nil {
		return err
	}
	if *token == "" {
		*token = "kvemu-" + randomHex(16)
	}
	nsList := strings.Split(*namespaces, ",")
	emu, err := kvemu.New(kvemu.Config{AccountID: *account, Token: *token, Namespaces: nsList,
		DailyWrites: *dailyWrites, DailyReads: *dailyReads})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", *addr, err)
	}
	base := "http://" + ln.Addr().String() + kvemu.Prefix
	fmt.Printf("kvemu: Workers KV API emulator on %s\n", ln.Addr())
	fmt.Printf("base URL:     %s\n", base)
	fmt.Printf("account ID:   %s\n", *account)
	fmt.Printf("namespace ID: %s\n", strings.Join(nsList, ", "))
	fmt.Printf("token:        %s\n", *token)
	fmt.Printf("for the cloudflare store:\n  export CLOUDFLARE_ACCOUNT_ID=%s CLOUDFLARE_API_TOKEN=%s\n", *account, *token)
	fmt.Printf("try it:\n  curl -s -X PUT -H 'Authorization: Bearer %s' --data 1 '%saccounts/%s/storage/kv/namespaces/%s/values/k?expiration_ttl=60'\n",
		*token, base, *account, nsList[0])

	var handler http.Handler = emu
	if !*quiet {
		handler = logRequests(emu)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	s := emu.Stats()
	fmt.Printf("kvemu: stopped after %d reads, %d writes, %d deletes, %d rate-limited writes, %d other refusals\n",
		s.Reads, s.Writes, s.Deletes, s.RateLimited, s.Rejected)
	return nil
}

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

// logRequests logs method, path, status and duration; never headers, so the
// token stays out of the log.
func logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		log.Printf("%s %s -> %d (%s)", r.Method, r.URL.RequestURI(), rec.status, time.Since(start).Round(time.Microsecond))
	})
}
