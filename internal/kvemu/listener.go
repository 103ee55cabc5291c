package kvemu

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
)

// Listener wraps ln so that a request net/http refuses before any handler
// runs is answered with the API's JSON envelope, as every other failure is,
// instead of net/http's plain-text "400 Bad Request". The usual cause is a key
// holding a '%' not followed by two hex digits, which net/http cannot parse
// into a URL. Serve the emulator on the wrapped listener:
//
//	srv := &http.Server{Handler: emu}
//	srv.Serve(kvemu.Listener(ln))
func Listener(ln net.Listener) net.Listener { return envelopeListener{ln} }

type envelopeListener struct{ net.Listener }

// Accept wraps each connection so that net/http's own error answers on it
// become envelopes.
func (l envelopeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return envelopeConn{c}, nil
}

// netHTTPError is how net/http's answer to a request it cannot read starts
// (net/http/server.go, conn.serve): a status line, then these headers, then
// the status text as the body, in one Write straight to the connection, after
// which it closes the connection. The emulator's own answers are never
// text/plain, so a Write that starts with a status line and has exactly these
// headers is net/http's.
const netHTTPError = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

type envelopeConn struct{ net.Conn }

// Write passes the emulator's answers through and replaces net/http's
// plain-text error answers with an envelope carrying the same status.
func (c envelopeConn) Write(p []byte) (int, error) {
	status, text, ok := parseNetHTTPError(p)
	if !ok {
		return c.Conn.Write(p)
	}
	msg := text + ": the emulator could not parse the request"
	if status == http.StatusBadRequest {
		msg += "; most often " + badEscapeHint
	}
	msg += "."
	body, _ := json.Marshal(envelope{Errors: []responseInfo{{Code: CodeBadURI, Message: msg}}, Messages: []responseInfo{}})
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		status, http.StatusText(status), len(body), body)
	if _, err := c.Conn.Write(b.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// parseNetHTTPError reads the status and the text of one of net/http's
// plain-text error answers, e.g. "HTTP/1.1 400 Bad Request" + netHTTPError +
// "400 Bad Request".
func parseNetHTTPError(p []byte) (status int, text string, ok bool) {
	line, rest, found := bytes.Cut(p, []byte(netHTTPError))
	if !found || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) || len(line) < len("HTTP/1.1 400") {
		return 0, "", false
	}
	status, err := strconv.Atoi(string(line[len("HTTP/1.1 "):len("HTTP/1.1 400")]))
	if err != nil || status < 400 || status > 599 {
		return 0, "", false
	}
	return status, string(rest), true
}
