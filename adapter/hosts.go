package adapter

import (
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
)

// guardHost checks the Host header before anything reflects it (the 401
// challenge, the metadata documents, the setup page, /llms.txt): it must
// be a host[:port], and a server reached on a loopback address answers
// only loopback Host names. That is the SDK's DNS-rebinding rule, which it
// applies at /mcp only, after the bearer check has already answered.
func guardHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !validHostPort(r.Host) {
			w.Header().Set("Connection", "close")
			writeHTTPError(w, http.StatusBadRequest, map[string]any{"type": "invalid_request_error", "code": "invalid_host",
				"message": "the Host header is not a host name or IP address with an optional port"})
			hangUp(w)
			return
		}
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil &&
			isLoopback(local.String()) && !isLoopback(r.Host) {
			w.Header().Set("Connection", "close")
			writeHTTPError(w, http.StatusMisdirectedRequest, map[string]any{"type": "invalid_request_error", "code": "misdirected_request",
				"message": "this server listens on a loopback address and answers only localhost, 127.0.0.1 or [::1] as Host (DNS-rebinding protection)"})
			hangUp(w)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// isLoopback is the SDK's rule (internal/util.IsLoopback): "localhost" or
// a loopback IP, with or without a port.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// validHostPort reports whether s is a DNS name, an IPv4 address or a
// bracketed IPv6 address, with an optional port 1-65535.
func validHostPort(s string) bool {
	host, port, hasPort := s, "", false
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return false
		}
		host, port = s[1:end], s[end+1:]
		if port != "" {
			if port[0] != ':' {
				return false
			}
			port, hasPort = port[1:], true
		}
		ip, err := netip.ParseAddr(host)
		if err != nil || !ip.Is6() || ip.Zone() != "" {
			return false
		}
	} else {
		if i := strings.LastIndexByte(s, ':'); i >= 0 {
			host, port, hasPort = s[:i], s[i+1:], true
		}
		if !validHostname(host) {
			return false
		}
	}
	if !hasPort {
		return true
	}
	if len(port) == 0 || len(port) > 5 || strings.Trim(port, "0123456789") != "" {
		return false
	}
	n, _ := strconv.Atoi(port)
	return n >= 1 && n <= 65535
}

// validHostname accepts DNS names (and so IPv4 addresses): dot-separated
// labels of letters, digits, '-' and '_' (container and service names use
// it), none starting or ending with '-', with an optional final dot.
func validHostname(h string) bool {
	h = strings.TrimSuffix(h, ".")
	if h == "" || len(h) > 253 {
		return false
	}
	for label := range strings.SplitSeq(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range []byte(label) {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// lastForwarded is the last value of a forwarded header, over all its
// lines: a proxy appends its value to what the client sent, so the last
// one is the proxy's own.
func lastForwarded(values []string) string {
	if len(values) == 0 {
		return ""
	}
	v := values[len(values)-1]
	if i := strings.LastIndexByte(v, ','); i >= 0 {
		v = v[i+1:]
	}
	return strings.TrimSpace(v)
}
