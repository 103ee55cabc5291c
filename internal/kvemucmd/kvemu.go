// Package kvemucmd is the kvemu command: it serves the Workers KV API
// emulator (internal/kvemu) on a loopback address, so the cloudflare store
// can be tried without an account. cmd/kvemu only calls Main.
package kvemucmd

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/kvemu"
)

// Exit codes: the ones every command shares (internal/cli).
const (
	ExitOK       = cli.ExitOK
	ExitFailure  = cli.ExitFailure
	ExitBadInput = cli.ExitBadInput
)

const usage = `usage: kvemu [flags]

Serves an emulator of the Cloudflare Workers KV REST API (values: get, put,
delete) on a loopback address, with the real envelopes and error codes, 1
write/s per key, TTL of at least 60 s, keys of at most 512 bytes and expiry.
It prints the base URL, account ID, namespace IDs and token to use, logs each
request (never its headers) and stops on Ctrl-C or SIGTERM.

Exit status: 0 ok, 1 failure, 2 bad flags (nothing started).

flags:
`

// config is what the flags say.
type config struct {
	addr        string
	account     string
	namespaces  []string
	token       string
	dailyWrites int
	dailyReads  int
	bodyTimeout time.Duration
	quiet       bool
}

// parseFlags reads args into a config; errors are bad input.
func parseFlags(args []string, stdout, stderr io.Writer) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("kvemu", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8787", "loopback `host:port` to listen on (port 0: any free port)")
	fs.StringVar(&c.account, "account", "0123456789abcdef0123456789abcdef", "account `ID` the emulator serves")
	namespaces := fs.String("namespace", "overshoot0000000000000000000000", "comma-separated namespace `IDs` that exist")
	fs.StringVar(&c.token, "token", "", "API `token` clients must send (default: a random one, printed)")
	fs.IntVar(&c.dailyWrites, "daily-writes", 0, "daily write quota, reset at 00:00 UTC (free plan: 1000; 0: none)")
	fs.IntVar(&c.dailyReads, "daily-reads", 0, "daily read quota, reset at 00:00 UTC (free plan: 100000; 0: none)")
	fs.DurationVar(&c.bodyTimeout, "body-timeout", kvemu.DefaultBodyTimeout, "longest a put's body may take to arrive (then 408)")
	fs.BoolVar(&c.quiet, "quiet", false, "do not log requests")
	if err := cli.Parse(fs, args, stdout); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q: all settings are flags (see -h)", fs.Args())
	}
	if err := kvemu.CheckLoopback(c.addr); err != nil {
		return nil, fmt.Errorf("-addr: %s", strings.TrimPrefix(err.Error(), "kvemu: "))
	}
	if _, port, _ := net.SplitHostPort(c.addr); !validPort(port) {
		return nil, fmt.Errorf("-addr %s: port %q is not a number from 0 to 65535 (0: any free port)", c.addr, port)
	}
	if c.bodyTimeout <= 0 {
		return nil, fmt.Errorf("-body-timeout %v: give a duration above 0, e.g. 10s", c.bodyTimeout)
	}
	if c.dailyWrites < 0 || c.dailyReads < 0 {
		return nil, fmt.Errorf("-daily-writes %d / -daily-reads %d: a quota is 0 (none) or more", c.dailyWrites, c.dailyReads)
	}
	c.namespaces = strings.Split(*namespaces, ",")
	if c.token == "" {
		c.token = "kvemu-" + randomHex(16)
	}
	return c, nil
}

// validPort reports whether port is a port number, 0 to 65535.
func validPort(port string) bool {
	n, err := strconv.Atoi(port)
	return err == nil && n >= 0 && n <= 65535 && strconv.Itoa(n) == port
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Main runs the kvemu command and returns its exit status. It serves until
// Ctrl-C or SIGTERM.
func Main(args []string, stdout, stderr io.Writer) int {
	c, err := parseFlags(args, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "kvemu:", err)
		return ExitBadInput
	}
	emu, err := kvemu.New(kvemu.Config{AccountID: c.account, Token: c.token, Namespaces: c.namespaces,
		DailyWrites: c.dailyWrites, DailyReads: c.dailyReads, BodyTimeout: c.bodyTimeout})
	if err != nil {
		fmt.Fprintln(stderr, err) // it names the account or namespace ID that is wrong
		return ExitBadInput
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, c, emu, stdout, stderr, nil); err != nil {
		fmt.Fprintln(stderr, "kvemu:", err)
		return ExitFailure
	}
	return ExitOK
}

// serve runs emu on c.addr until ctx is done, then prints what it served.
// ready, when not nil, is called with the base URL once the emulator listens.
func serve(ctx context.Context, c *config, emu *kvemu.Emulator, stdout, stderr io.Writer, ready func(base string)) error {
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("cannot listen on %s: %w (is another kvemu running there? pick another -addr)", c.addr, err)
		}
		return fmt.Errorf("cannot listen on %s: %w: pick another -addr", c.addr, err)
	}
	base := "http://" + ln.Addr().String() + kvemu.Prefix
	fmt.Fprintf(stdout, "kvemu: Workers KV API emulator on %s\n", ln.Addr())
	fmt.Fprintf(stdout, "base URL:     %s\n", base)
	fmt.Fprintf(stdout, "account ID:   %s\n", c.account)
	fmt.Fprintf(stdout, "namespace ID: %s\n", strings.Join(c.namespaces, ", "))
	fmt.Fprintf(stdout, "token:        %s\n", c.token)
	fmt.Fprintf(stdout, "for the cloudflare store:\n  export CLOUDFLARE_ACCOUNT_ID=%s CLOUDFLARE_API_TOKEN=%s\n", c.account, c.token)
	fmt.Fprintf(stdout, "try it:\n  curl -s -X PUT -H 'Authorization: Bearer %s' --data 1 '%saccounts/%s/storage/kv/namespaces/%s/values/k?expiration_ttl=60'\n",
		c.token, base, c.account, c.namespaces[0])

	var handler http.Handler = emu
	if !c.quiet {
		handler = logRequests(emu, log.New(stderr, "", log.LstdFlags))
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(kvemu.Listener(ln)) }()
	if ready != nil {
		ready(base)
	}
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
	fmt.Fprintf(stdout, "kvemu: stopped after %d reads, %d writes, %d deletes, %d rate-limited writes, %d other refusals\n",
		s.Reads, s.Writes, s.Deletes, s.RateLimited, s.Rejected)
	return nil
}

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

// WriteHeader records status and passes it on.
func (r *statusRecorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

// Unwrap returns the ResponseWriter underneath, so that the emulator's
// http.ResponseController (its body deadline) reaches the connection.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// logRequests logs method, path, status and duration to logger; never
// headers, so the token stays out of the log.
func logRequests(next http.Handler, logger *log.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		logger.Printf("%s %s -> %d (%s)", r.Method, r.URL.RequestURI(), rec.status, time.Since(start).Round(time.Microsecond))
	})
}
