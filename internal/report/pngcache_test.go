package report

import (
	"bytes"
	"crypto/sha256"
	"sync"
	"testing"
)

// The tests draw the same figures again and again (sampleSimulate's, in a
// simulated run's report, beside an attack, under a sweep), and
// rasterizing them takes most of the package's time under the race
// detector. A figure whose SVG is the same is the same drawing, so its PNG
// is rasterized once and kept (TestSameSVGSamePNG holds the premise).
func init() { testHookPNG = pngs.get }

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
