package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// The tests draw the same figures again and again (sampleSimulate's, in a
// simulated run's report, beside an attack, under a sweep), and
// rasterizing them takes most of the package's time under the race
// detector. A figure whose SVG is the same is the same drawing, so its PNG
// is rasterized once and kept (TestSameSVGSamePNG holds the premise).
// A test binary run again as a child (TestKilledWhileWriting) finds the
// PNGs its parent drew in the folder envPNGs names.
func init() {
	testHookPNG = pngs.get
	if dir := os.Getenv(envPNGs); dir != "" {
		pngs.load(dir)
	}
}

// envPNGs names a folder of PNGs drawn before, one file per SVG's hash.
const envPNGs = "OVERSHOOT_REPORT_PNGS"

// pngCache keeps each PNG drawn, by its figure's SVG.
type pngCache struct {
	mu sync.Mutex
	m  map[[32]byte]*cachedPNG
}

// cachedPNG is one figure's PNG, drawn once.
type cachedPNG struct {
	once sync.Once
	png  []byte
	err  error
}

var pngs = &pngCache{m: map[[32]byte]*cachedPNG{}}

// get returns the PNG of the figure whose SVG is svg, drawing it the first
// time only.
func (c *pngCache) get(svg []byte, draw func() ([]byte, error)) ([]byte, error) {
	k := sha256.Sum256(svg)
	c.mu.Lock()
	e := c.m[k]
	if e == nil {
		e = &cachedPNG{}
		c.m[k] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.png, e.err = draw() })
	return e.png, e.err
}

// save writes every PNG drawn so far into dir, for load.
func (c *pngCache) save(dir string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.m {
		if e.png == nil {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, hex.EncodeToString(k[:])), e.png, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// load keeps the PNGs save wrote into dir; a file that is not one is
// left out, to be drawn again.
func (c *pngCache) load(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, ent := range ents {
		var k [32]byte
		if h, err := hex.DecodeString(ent.Name()); err != nil || copy(k[:], h) != len(k) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, ent.Name()))
		if err != nil {
			continue
		}
		e := &cachedPNG{png: b}
		e.once.Do(func() {})
		c.m[k] = e
	}
}

// TestSameSVGSamePNG draws one figure twice without the cache: the same
// SVG and the same PNG, byte for byte, which is what keeping a PNG by its
// SVG rests on; and the cache gives that PNG back. Not parallel: it turns
// the cache off while it runs, and parallel tests run after it.
func TestSameSVGSamePNG(t *testing.T) {
	testHookPNG = nil
	defer func() { testHookPNG = pngs.get }()
	f := RatioCDF(sampleSimulate())
	p1, s1, err := render(f)
	if err != nil {
		t.Fatal(err)
	}
	p2, s2, err := render(RatioCDF(sampleSimulate()))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(s1, s2) || !bytes.Equal(p1, p2) {
		t.Fatalf("one figure drawn twice: SVGs equal %v, PNGs equal %v; want both", bytes.Equal(s1, s2), bytes.Equal(p1, p2))
	}
	testHookPNG = pngs.get
	p3, _, err := render(f)
	if err != nil || !bytes.Equal(p3, p1) {
		t.Errorf("the cache gave another PNG (%v)", err)
	}
}
