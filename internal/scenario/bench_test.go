package scenario

import (
	"os"
	"testing"
)

// BenchmarkQuantile measures the inverse CDFs the model's sampling follows.
func BenchmarkQuantile(b *testing.B) {
	for _, l := range []struct {
		name string
		l    Latency
	}{
		{"lognormal", DefaultHotRead()},
		{"empirical", DefaultColdRead()},
	} {
		b.Run(l.name, func(b *testing.B) {
			var sum int64
			for i := 0; b.Loop(); i++ {
				sum += int64(l.l.Quantile(float64(i%1000) / 1000))
			}
			_ = sum
		})
	}
}

// BenchmarkLoadDefault measures loading scenarios/default.yaml.
func BenchmarkLoadDefault(b *testing.B) {
	data, err := os.ReadFile("../../scenarios/default.yaml")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Parse("default.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}
