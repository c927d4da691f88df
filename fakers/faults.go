package fakers

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"
)

// A Fault changes how the RS answers requests to one path prefix, so tests
// can prove an adapter survives a broken provider.
type Fault struct {
	Status   int           // answer with this status and the RS error envelope
	Body     string        // answer with this raw body instead (e.g. not JSON)
	Delay    time.Duration // wait before answering; ends early if the client goes away
	Truncate bool          // send only the first half of the real body
	Oversize int           // append this many bytes to the real body
	Drip     time.Duration // send the real body one byte per Drip
	Reset    bool          // drop the connection without an answer
	Times    int           // apply to the next Times requests only; 0 means every request
}

type faultRule struct {
	prefix string
	f      Fault
	left   int
}

// InjectFault applies f to requests whose path starts with prefix. The
// newest matching rule wins.
func (rs *RS) InjectFault(prefix string, f Fault) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.faults = append(rs.faults, &faultRule{prefix: prefix, f: f, left: f.Times})
}

// ClearFaults removes every injected fault.
func (rs *RS) ClearFaults() { rs.mu.Lock(); rs.faults = nil; rs.mu.Unlock() }

func (rs *RS) takeFault(path string) *Fault {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for i := len(rs.faults) - 1; i >= 0; i-- {
		rule := rs.faults[i]
		if !strings.HasPrefix(path, rule.prefix) {
			continue
		}
		if rule.f.Times > 0 {
			if rule.left == 0 {
				continue
			}
			rule.left--
		}
		f := rule.f
		return &f
	}
	return nil
}

// apply serves the faulty answer. It returns false when only a delay was
// asked for and the normal answer should follow.
func (f *Fault) apply(w http.ResponseWriter, r *http.Request, serve func(http.ResponseWriter)) bool {
	if f.Delay > 0 {
		select {
		case <-time.After(f.Delay):
		case <-r.Context().Done():
			return true
		}
	}
	switch {
	case f.Reset:
		panic(http.ErrAbortHandler) // net/http drops the connection
	case f.Body != "":
		w.Header().Set("Content-Type", "text/plain")
		status := f.Status
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(f.Body))
		return true
	case f.Status != 0:
		writeError(w, r, "req_fault", &apiError{Code: "fault_injected", Message: "injected fault", status: f.Status})
		return true
	case f.Truncate || f.Oversize > 0 || f.Drip > 0:
		rec := httptest.NewRecorder()
		serve(rec)
		body := rec.Body.Bytes()
		if f.Truncate {
			body = body[:len(body)/2]
		}
		if f.Oversize > 0 {
			body = append(body, bytes.Repeat([]byte(" "), f.Oversize)...)
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		if f.Drip == 0 {
			_, _ = w.Write(body)
			return true
		}
		fl, _ := w.(http.Flusher)
		for _, b := range body {
			select {
			case <-time.After(f.Drip):
			case <-r.Context().Done():
				return true
			}
			if _, err := w.Write([]byte{b}); err != nil {
				return true
			}
			if fl != nil {
				fl.Flush()
			}
		}
		return true
	}
	return false
}
