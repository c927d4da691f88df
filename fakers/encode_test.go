package fakers

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

func encodeStd(body any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(body)
	return b.Bytes()
}

// encodeJSON must write exactly what encoding/json writes: every fixture
// record, the envelope shapes around them, and floats of every magnitude.
func TestEncodeJSONMatchesEncodingJSON(t *testing.T) {
	var bodies []any
	for _, name := range append(Fixtures(), "scale:2,2,5,3") {
		fx, err := LoadFixture(name)
		if err != nil {
			t.Fatal(err)
		}
		rs := New(fx)
		for _, s := range fx.Streams {
			for _, rec := range s.Records {
				bodies = append(bodies, rec.Data, map[string]any{"object": "record", "id": rec.ID, "data": rs.dataJSON(s, rec, nil)})
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 2000; i++ {
		f := math.Float64frombits(rng.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		bodies = append(bodies, map[string]any{"sum": f, "n": rng.Int64(), "small": f / 1e300, "third": float64(i) / 3})
	}
	bodies = append(bodies, map[string]any{"html": "<mark>a & b</mark>", "ctl": "\u2028\u2029\x01", "bad": "\xff", "nil": nil, "empty": []any{}, "raw": json.RawMessage(`{"b":1,"a":[1,2]}`)}) // raw values are dataJSON's, compact already
	for _, body := range bodies {
		if got, want := encodeJSON(body), encodeStd(body); !bytes.Equal(got, want) {
			t.Fatalf("encodeJSON differs from encoding/json:\n got %s\nwant %s", got, want)
		}
	}
}
