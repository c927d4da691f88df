package fakers

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkRecordsPage serves a 25-record page of one connection straight
// through the handler; b.N/elapsed is the fake's ceiling in requests/s.
func BenchmarkRecordsPage(b *testing.B) {
	fx, _ := LoadFixture(DefaultFixture)
	rs := New(fx)
	req := httptest.NewRequest("GET", "/v1/streams/messages/records?connection_id=cin_work&limit=25", nil)
	req.Header.Set("Authorization", "Bearer "+rs.ClientToken())
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			rec := httptest.NewRecorder()
			rs.ServeHTTP(rec, req)
			if rec.Code != 200 {
				b.Fatalf("status %d", rec.Code)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// BenchmarkRecordsPageLoopback is the same page over a real loopback socket.
func BenchmarkRecordsPageLoopback(b *testing.B) {
	fx, _ := LoadFixture(DefaultFixture)
	rs := New(fx)
	u, stop, err := rs.Start("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	// Shutdown waits for idle connections; keep it out of ns/op.
	defer func() { b.StopTimer(); client.CloseIdleConnections(); _ = stop(b.Context()) }()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest("GET", u+"/v1/streams/messages/records?connection_id=cin_work&limit=25", nil)
			req.Header.Set("Authorization", "Bearer "+rs.ClientToken())
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}
