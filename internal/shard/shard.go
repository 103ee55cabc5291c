// Package shard holds the shard files of simulate -shard and attack -shard
// and the checks their merges make. A run split over N processes writes one
// shard file per process; -merge reads them back and rebuilds the one run.
//
// The shard files of both commands are one format family: a JSON object
// that starts with the same header (kind, schema, shard, shards; Header),
// read by one reader (Read: at most MaxFileSize bytes, unknown fields
// refused, the kind and the schema checked, then every field against its
// range), and whose data is checked against the count and SHA-256 its file
// records (CheckSum): simulate's trials, inline, and attack's results, in
// the results file beside it. A shard file is input: it may have been
// edited, truncated or written by something else, so a damaged one is an
// error that names the file and the field, never a panic, a huge
// allocation or a merged run that adds up to nonsense.
//
// How a run is cut into shards is plan.Shard's; this package holds what
// the shards write and how a merge checks that they make one run.
package shard

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/overshoot-dev/overshoot/internal/atomicfile"
	"github.com/overshoot-dev/overshoot/internal/bounded"
	"github.com/overshoot-dev/overshoot/internal/plan"
)

// MaxFileSize bounds a shard file read by -merge, of either command.
var MaxFileSize int64 = bounded.MaxShard

// Header is how every shard file starts: its kind (overshoot-TOOL-shard),
// the schema of its format and its place among the run's shards.
type Header struct {
	Kind   string `json:"kind"`
	Schema int    `json:"schema"`
	Shard  int    `json:"shard"`
	Shards int    `json:"shards"`
}

// header returns h; a shard file type has it by embedding Header.
func (h *Header) header() *Header { return h }

// check checks the header's place among the shards.
func (h *Header) check() error {
	switch {
	case h.Shards < 1 || h.Shards > plan.MaxShards:
		return fmt.Errorf("shards %d is out of range: must be 1 to %d", h.Shards, plan.MaxShards)
	case h.Shard < 0 || h.Shard >= h.Shards:
		return fmt.Errorf("shard %d is not one of 0..%d", h.Shard, h.Shards-1)
	}
	return nil
}

// format names one command's shard files: the tool that writes them, the
// schema it writes and the older schemas it still reads.
type format struct {
	tool   string // simulate or attack
	what   string // "a simulate shard file", for messages
	schema int
	older  []int
}

// kind is the kind a shard file of the format holds.
func (f format) kind() string { return "overshoot-" + f.tool + "-shard" }

// file is a shard file type: it embeds Header and checks its own fields.
type file[T any] interface {
	*T
	header() *Header
	check() error
}

// read reads the shard files named by args (files, or folders whose
// shard-*-of-*.json files are read; Paths), each at most MaxFileSize,
// checks each one's kind, schema and fields, and returns them with their
// paths. Errors name the file.
func read[T any, P file[T]](args []string, f format) ([]T, []string, error) {
	paths, err := Paths(args)
	if err != nil {
		return nil, nil, err
	}
	var out []T
	for _, p := range paths {
		b, err := bounded.ReadFile(p, MaxFileSize, f.what)
		if err != nil {
			return nil, nil, err
		}
		var v T
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil || P(&v).header().Kind != f.kind() {
			return nil, nil, fmt.Errorf("%s is not %s (written by %s -shard I/N)", p, f.what, f.tool)
		}
		if s := P(&v).header().Schema; s != f.schema && !slices.Contains(f.older, s) {
			return nil, nil, fmt.Errorf("%s: shard schema %d, this %s reads schema %d: merge with the %s that wrote it", p, s, f.tool, f.schema, f.tool)
		}
		err = P(&v).header().check()
		if err == nil {
			err = P(&v).check()
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v: the file was edited or damaged; run its shard again", p, err)
		}
		out = append(out, v)
	}
	return out, paths, nil
}

// Paths lists the shard files a -merge names: each argument is a shard
// file, or a folder whose shard-*-of-*.json files are taken (where the
// shards wrote under -out).
func Paths(args []string) ([]string, error) {
	var paths []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			paths = append(paths, a)
			continue
		}
		m, _ := filepath.Glob(filepath.Join(a, "shard-*-of-*.json"))
		if len(m) == 0 {
			return nil, fmt.Errorf("%s has no shard-*-of-*.json files: give the folder the shards wrote under (-out)", a)
		}
		paths = append(paths, m...)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("give the shard files, or the folder they were written under")
	}
	return paths, nil
}

// Base is the file name stem of shard i of n: shard-I-of-N.
func Base(i, n int) string { return fmt.Sprintf("shard-%d-of-%d", i, n) }

// Write writes a shard file whole (atomicfile.Replace), so that a merge
// never reads half of one; a shard run again (a Job retries a failed pod
// with its index) replaces its file. The folder must exist.
func Write(path string, b []byte) error { return atomicfile.Replace(path, b) }

// Sum is what a shard file records of its data, and what the data holds:
// how many items (trials, results) and their SHA-256 in hex.
type Sum struct {
	Count  int64
	SHA256 string
}

// SumOf is the sum of count items whose bytes are b.
func SumOf(count int64, b []byte) Sum {
	h := sha256.Sum256(b)
	return Sum{Count: count, SHA256: hex.EncodeToString(h[:])}
}

// sha256Pattern is a SHA-256 in hex.
var sha256Pattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Recorded names where a shard file records a Sum, for CheckSum's error:
// the file, its count and checksum fields, what the items are, and what
// to do when they disagree.
type Recorded struct {
	File, CountField, SHAField, Items, Fix string
}

// CheckSum checks the data (named data) against the sum its shard file
// records (want): the same count and the same SHA-256. The error says
// what each holds, and then r.Fix when it is given.
func CheckSum(data string, got, want Sum, r Recorded) error {
	if got == want {
		return nil
	}
	fix := ""
	if r.Fix != "" {
		fix = ": " + r.Fix
	}
	return fmt.Errorf("%s holds %d %s with checksum %.12s, but %s says %s %d, %s %.12s%s",
		data, got.Count, r.Items, got.SHA256, r.File, r.CountField, want.Count, r.SHAField, want.SHA256, fix)
}
