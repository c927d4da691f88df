package bench

import (
	"slices"
	"strconv"
	"time"
)

// Percentiles summarise one series of durations, nearest-rank.
type Percentiles struct {
	N   int           `json:"n"`
	P50 time.Duration `json:"p50_ns"`
	P95 time.Duration `json:"p95_ns"`
	P99 time.Duration `json:"p99_ns"`
	Max time.Duration `json:"max_ns"`
}

func percentiles(ds []time.Duration) Percentiles {
	if len(ds) == 0 {
		return Percentiles{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(q float64) time.Duration {
		i := int(q*float64(len(s))+0.999999) - 1 // nearest rank
		return s[max(0, min(i, len(s)-1))]
	}
	return Percentiles{N: len(s), P50: at(0.50), P95: at(0.95), P99: at(0.99), Max: s[len(s)-1]}
}

// ms formats a duration as milliseconds with enough precision for
// sub-millisecond overheads.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	prec := 1
	switch {
	case v < 10 && v > -10:
		prec = 3
	case v < 100 && v > -100:
		prec = 2
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}
