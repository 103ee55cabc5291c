package attack

import (
	"bytes"
	"strings"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// TestDigestResults: a results file's digest counts its results and
// changes with any byte of it; zeros, or zeros after the results (what a
// crashed writer can leave), are not results.
func TestDigestResults(t *testing.T) {
	var buf bytes.Buffer
	enc := vegeta.NewEncoder(&buf)
	now := time.Now()
	for i := range 3 {
		enc.Encode(&vegeta.Result{Attack: "bot", Code: 200, Timestamp: now.Add(time.Duration(i) * time.Second)})
	}
	whole := buf.Bytes()
	d, err := DigestResults(bytes.NewReader(whole))
	if err != nil || d.Results != 3 || !d.First.Equal(now) || !d.Last.Equal(now.Add(2*time.Second)) || len(d.SHA256) != 64 {
		t.Fatalf("digest %+v, %v: want 3 results from now to now+2s", d, err)
	}
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"zero-filled", make([]byte, len(whole))},
		{"truncated", whole[:len(whole)/2]},
		{"zeros after", append(append([]byte{}, whole...), make([]byte, 100)...)},
		{"empty", nil},
	} {
		got, err := DigestResults(bytes.NewReader(tc.b))
		if err == nil && got.Results == d.Results && got.SHA256 == d.SHA256 {
			t.Errorf("%s: digest %+v, the whole file's: want it told apart", tc.name, got)
		}
		if err != nil && !strings.Contains(err.Error(), "results") {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
